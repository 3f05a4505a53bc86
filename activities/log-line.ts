// What the worker writes to its log when the words come from outside: a hand-completed result's
// key id, a stranger's workflow type, an MCP server's error. A log is read line by line, by people
// and by collectors, so a newline in such words would forge a line of the worker's own; control
// and bidi characters would hide or reorder what is there. Such text is logged on one line, with
// those characters shown as `\uXXXX`, and cut.
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** The text as one log line: every control, line-breaking, invisible or bidi character escaped, at most `max` characters. */
export function logLine(text: string, max = 1_000): string {
  const shown = text.replace(HIDDEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return shown.length > max ? `${shown.slice(0, max)}…` : shown;
}
