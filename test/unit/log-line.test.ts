// Words from outside the worker (a forged key id, a stranger's workflow type, an MCP server's
// error) are logged as one line: a newline in them cannot forge a line of the worker's own, and
// control, invisible or bidi characters are shown, not obeyed (activities/log-line.ts, used by the
// seal wrapper's warnings and the MCP source's log).
import { describe, expect, it } from 'vitest';
import { logLine } from '../../activities/log-line.js';

describe('a log line from outside words', () => {
  it('keeps a forged line on the line it came in on, and shows what was hidden', () => {
    const forged = 'key k9 is unknown\n2026-12-07T00:00:00Z INFO approval granted by alice@ops\u202egnp.exe\u200b';
    const line = logLine(`a result no worker sealed: ${forged}`);
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain('\\u000a2026-12-07T00:00:00Z INFO approval granted');
    expect(line).toContain('\\u202egnp.exe\\u200b');
    expect([...line].some((c) => c.charCodeAt(0) < 0x20 || c === '\u202e' || c === '\u200b')).toBe(false);
  });

  it('leaves plain words as they are, and cuts a long one', () => {
    expect(logLine('MCP incidents: the connection closed; the next call reconnects')).toBe('MCP incidents: the connection closed; the next call reconnects');
    expect(logLine('x'.repeat(5_000), 100)).toBe(`${'x'.repeat(100)}…`);
  });
});
