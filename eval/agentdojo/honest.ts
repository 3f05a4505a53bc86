// Why this exists: the scripted models know AgentDojo's answer key, and a model that knows the
// key can pay an IBAN no file showed it; then utility would measure the key, not what the engine
// let through. So a scripted model's call carries only values it could have written from what
// the run showed it: text it saw (case and spacing aside), and numbers and dates, which it may
// compute from what it saw. Its own words (an argument the contract calls narrative) are its to choose.
// (Its final answer is still the key's: judging which words of an answer are values it must
// have read, and which are its own, is left open.)
import type { CompiledContext } from '../../workflows/controller/index.js';

const normal = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();

/** Everything the run showed the model: the request and notes, each read's text and facts. */
export function shownText(context: CompiledContext): string {
  const facts = context.evidence.flatMap((e) => Object.values(e.facts).flatMap((v) => (typeof v === 'string' || typeof v === 'number' ? [String(v)] : [])));
  const texts = context.evidence.flatMap((e) => e.untrustedText ?? []);
  return normal([...context.notes.map((n) => n.text), ...texts, ...facts].join('\n'));
}

/** Whether a model shown `shown` could write `value`: a number it may compute; text only if it saw it. */
export function couldWrite(value: unknown, shown: string): boolean {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return true;
  if (Array.isArray(value)) return value.every((v) => couldWrite(v, shown));
  if (typeof value === 'object') return Object.values(value).every((v) => couldWrite(v, shown));
  // A date or time it may write from words it read ("January 2nd 2025" is 2025-01-02).
  if (DATE.test(String(value))) return true;
  return shown.includes(normal(String(value)));
}

const DATE = /^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2})?)?$/;

/** The first string argument (outside `own`, the model's own words) the model could not have written, if any. */
export function unseenArgument(args: Record<string, unknown>, shown: string, own: readonly string[]): string | undefined {
  return Object.entries(args).find(([name, value]) => !own.includes(name) && !couldWrite(value, shown))?.[0];
}
