// Why this exists: a choice the scripted planner of shape `plan` makes among records it cannot
// name. It never sees a restaurant's name or address (text, withheld: planner-view.ts), only the
// run's handle for it (`restaurant.#e8-3`) and what the records state as numbers and single words
// (a rating, a price, a cuisine). "The best-rated Israeli restaurant" is a choice it can make on
// those alone: keep the records whose shown words the request names, take the best rated (the
// cheaper of a tie), and refer to that record's address by its handle, which the agency's records
// vouch for. Where the request names nothing the records show (a vegan option is in a record's
// text), it does not guess: the value is extracted and a person decides, as before.
import type { CompiledContext } from '../../workflows/controller/index.js';
import { statedIn } from './planner-shown.js';

type Shown = Record<string, string | number | boolean | null>;

/**
 * A reference to the `kind` fact (`e10.restaurant.#e8-3.address`) of the record the request
 * chooses, among the several a read withheld; undefined when the request does not say how to
 * choose by what the planner was shown.
 */
export function chosenOfKind(kind: string, context: CompiledContext, request: string): string | undefined {
  if (!/\b(rating|ratings|rated)\b/.test(request)) return undefined;
  for (const e of [...context.evidence].reverse()) {
    const keys = (e.withheld ?? []).filter((k) => k.split('.').at(-1) === kind && k.split('.').length === 3);
    if (keys.length < 2) continue;
    const records = keys.map((key) => ({ key, shown: shownOf(key.split('.').slice(0, 2).join('.'), context) }));
    // What the request names among the words the records show (a cuisine): only those records.
    const named = records.filter((r) => Object.values(r.shown).some((v) => typeof v === 'string' && statedIn(v, request)));
    const rated = named.filter((r) => typeof r.shown.rating === 'number');
    if (rated.length === 0) return undefined;
    const price = (r: (typeof rated)[number]) => (typeof r.shown.price_per_person === 'number' ? r.shown.price_per_person : Infinity);
    rated.sort((a, b) => (b.shown.rating as number) - (a.shown.rating as number) || price(a) - price(b));
    return `${e.id}.${(rated[0] as (typeof rated)[number]).key}`;
  }
  return undefined;
}

/** Every part of one record the planner was shown by value, newest reading first (`rating`, `cuisine`). */
function shownOf(record: string, context: CompiledContext): Shown {
  const shown: Shown = {};
  for (const e of [...context.evidence].reverse()) {
    for (const [key, value] of Object.entries(e.facts)) {
      const part = key.startsWith(`${record}.`) ? key.slice(record.length + 1) : undefined;
      if (part !== undefined && !part.includes('.') && !(part in shown)) shown[part] = value as Shown[string];
    }
  }
  return shown;
}
