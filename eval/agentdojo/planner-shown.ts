// Why this exists: what the scripted planner of shape `plan` was shown, and how it may use it: the
// text it may copy (the signed request; any other text only if the shape shows it), whether that
// text states a value or names a day, the words of a signed note it may quote, and the facts it
// was shown by value, which it names by reference. Shared by its calls (planner.ts) and its
// answer (planner-answer.ts).
import { type CompiledContext, saysAsWritten, spelled } from '../../workflows/controller/index.js';

export type Value = string | number;

/** The text the planner was shown: the signed request, and any other text only if the shape shows it. */
export function plannerText(context: CompiledContext): string {
  return [...context.notes.map((n) => n.text), ...context.evidence.flatMap((e) => e.untrustedText ?? [])].join('\n').toLowerCase();
}

/**
 * Whether the text states the value: a number as a number of its own, not a part of one (24 is
 * not stated by "2024", nor 5 by "2024-05-20": stricter than the gate's reading of a signed note,
 * numbersStated, which takes 05 for 5), anything else as it is spelled.
 */
export function statedIn(value: Value, shown: string): boolean {
  const text = String(value).toLowerCase();
  if (!/^\d+(\.\d+)?$/.test(text)) return shown.includes(text);
  return new RegExp(`(?<![\\d.])${text.replace('.', '\\.')}(?!\\.?\\d)`).test(shown);
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/**
 * A day, or a time on a day, the planner was told of: "from January 11th" gives 2025-01-11, and
 * "12:00 on 2024-05-19 for one hour" gives 2024-05-19 13:00. The day must be one the text names
 * (as a date, or a month and its day); the year and the time of day it may work out, as honest.ts
 * lets a model that read the text write a date or a time.
 */
export function onShownDate(value: Value, shown: string): boolean {
  const date = /^(\d{4}-(\d{2})-(\d{2}))(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$/.exec(String(value));
  if (!date) return false;
  const [, iso, month, day] = date;
  if (shown.includes(iso as string)) return true;
  const name = MONTHS[Number(month) - 1];
  const n = String(Number(day));
  return new RegExp(`\\b${name}\\s+${n}(st|nd|rd|th)?\\b|\\b${n}(st|nd|rd|th)?\\s+(of\\s+)?${name}\\b`).test(shown);
}

/** Whether a signed note says the value as written: what the planner quotes (`{"$quote": ...}`), by the gate's own reading. */
export function signedWords(value: Value, context: CompiledContext): boolean {
  return typeof value === 'string' && context.notes.some((n) => n.signed && saysAsWritten(n.text, value));
}

/**
 * The newest fact the planner was shown with this value, as a reference (`e3.contact.#e3-1.email`).
 * A number for an argument (`as`) is shown only by a fact of that name: an amount of 4 is not the
 * transaction whose id is 4 (banking 3), however equal the two numbers are.
 */
export function factShowing(leaf: Value, context: CompiledContext, as?: string): string | undefined {
  const named = (key: string) => typeof leaf !== 'number' || as === undefined || key.endsWith(`.${as}`);
  for (const e of [...context.evidence].reverse()) {
    const key = Object.entries(e.facts).find(([k, f]) => (typeof f === 'string' || typeof f === 'number') && spelled(f) === spelled(leaf) && named(k))?.[0];
    if (key !== undefined) return `${e.id}.${key}`;
  }
  return undefined;
}
