// Why this exists: the scripted models know AgentDojo's answer key, and a model that knows the
// key can pay an IBAN no file showed it; then utility would measure the key, not what the engine
// let through. So a scripted model's call carries only values it could have written from what
// the run showed it: text it saw (case and spacing aside), and numbers and dates, which it may
// compute from what it saw. Its own words (an argument the contract calls narrative) are its to choose.
// Its final answer is held to the same rule: of the key's answer it says only the parts the run
// showed it, and numbers, which it may have computed; a part it was not shown it leaves out.
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

/**
 * The parts of an answer: what its commas, lines and numbering separate ("Le Baratin, 4.8, 3 Rue
 * Jouye-Rouve" is three; "£1,050" is one, and so is the rating "4.8").
 */
export function answerParts(answer: string): string[] {
  return answer
    .split(/,\s+|\n|(?:^|\s)\d{1,2}\.(?!\d)/)
    .map((part) => part.trim().replace(/^-\s*/, ''))
    .filter((part) => part.length > 0);
}

/** A text with its whitespace as single spaces: what sayable() gives back of a part it could say whole. */
export const spaced = (text: string) => text.trim().split(/\s+/).join(' ');

/** Whether a part states no words: numbers, amounts, times and dates, which a model may compute. */
const wordless = (part: string) => !/\p{L}/u.test(part);

/**
 * What a model shown `shown` could say of one part of an answer: the part, if it was shown it
 * whole (as a phrase, not inside a longer word) or it states no words; else the longest runs of
 * its words it was shown as phrases, and its wordless words, in order; else nothing.
 */
export function sayable(part: string, shown: string): string {
  if (wordless(part) || shownPhrase(part, shown)) return part;
  const words = part.split(/\s+/);
  const said: string[] = [];
  for (let i = 0; i < words.length;) {
    let j = words.length;
    while (j > i && !(j - i === 1 && wordless(words[i] as string)) && !shownPhrase(words.slice(i, j).join(' '), shown)) j--;
    if (j === i) i++;
    else {
      said.push(words.slice(i, j).join(' '));
      i = j;
    }
  }
  return said.join(' ');
}

/** Whether a model shown `text` (any text: compared as honest.ts normalizes it) could say every word of `part`. */
export function saysWhole(part: string, text: string): boolean {
  return spaced(sayable(part, normal(text))) === spaced(part);
}

/** The key's answer as a model shown `shown` could give it: each part it could say, in order. */
export function honestAnswer(key: string, shown: string): string {
  return answerParts(key)
    .map((part) => sayable(part, shown))
    .filter((said) => said.length > 0)
    .join(', ');
}

function shownPhrase(phrase: string, shown: string): boolean {
  const text = normal(phrase).replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
  if (text.length === 0) return false;
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'u').test(shown);
}
