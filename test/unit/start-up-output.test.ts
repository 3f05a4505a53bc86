// A dev server that loses a port between the CLI choosing it and the server binding it logs the
// cause first and a long stack after. The record keeps both ends and notes the taken port however
// stderr arrives in chunks: with only the last lines kept, the cause was gone and the start was
// not tried again (CI, stop 69). The fixture is what the pinned CLI wrote when another process
// took its HTTP port from under it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../temporal-dev/paths.js';
import { StartUpOutput } from '../../temporal-dev/start-up-output.js';

const recorded = readFileSync(join(projectRoot, 'test/fixtures/dev-server-port-taken.stderr'), 'utf8');
const cause = 'listen tcp 127.0.0.1:40787: bind: address already in use';
/** A Go panic's goroutine dump: long enough to push the cause out of any record of the last lines. */
const stack = Array.from(
  { length: 400 },
  (_, i) => `go.uber.org/fx.(*module).invoke(0x${i.toString(16)})\n\t/go/pkg/mod/go.uber.org/fx@v1.24.0/module.go:335\n`,
).join('');

function fed(text: string, splits: number[]): StartUpOutput {
  const record = new StartUpOutput();
  let from = 0;
  for (const at of [...splits, text.length]) {
    record.add(text.slice(from, at));
    from = at;
  }
  return record;
}

describe('what a dev server wrote to stderr while starting', () => {
  it('notes the taken port wherever the chunks split, even inside the words that say so', () => {
    const line = recorded.split('\n').find((candidate) => candidate.includes(cause)) ?? '';
    const at = line.lastIndexOf(cause);
    expect(at).toBeGreaterThan(0);
    for (let split = at; split <= at + cause.length; split++) {
      expect([...fed(line, [split]).takenPorts], `split at ${split - at}`).toEqual([40787]);
    }
    const lineByLine = recorded.split('\n').map((_, i, lines) => lines.slice(0, i + 1).join('\n').length + 1);
    expect([...fed(recorded, lineByLine.slice(0, -1)).takenPorts]).toEqual([40787]);
  });

  it('keeps the first lines (the cause) and the last (the stack) when the middle is long', () => {
    // In small chunks, as a panicking server writes it: the record has long switched to its two ends.
    const whole = recorded + stack;
    const record = fed(
      whole,
      Array.from({ length: Math.floor(whole.length / 100) }, (_, i) => (i + 1) * 100),
    );
    expect([...record.takenPorts]).toEqual([40787]);
    const text = record.text();
    expect(text).toContain(recorded.split('\n')[0]);
    expect(text).toContain('address already in use');
    expect(text).toContain(stack.slice(-60));
    expect(text).toContain('[… the middle left out …]');
    expect(text.length).toBeLessThan(10_000);
  });

  it('keeps a short stderr whole and finds no taken port where none was', () => {
    const record = fed('Error: unknown flag: --nope\n', [3, 9]);
    expect(record.text()).toBe('Error: unknown flag: --nope\n');
    expect(record.takenPorts.size).toBe(0);
  });
});
