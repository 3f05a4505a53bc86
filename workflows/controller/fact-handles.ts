// How a planner names a fact whose key it may not read. A read's facts are keyed partly by what
// the read returned (`hotel.Le Marais Boutique.rating`), so a key can carry text an attacker
// wrote. The planner is shown each key with every part that is not a short token replaced by a
// handle, numbered in the order the parts first appear in that evidence (`hotel.#1.rating`,
// `hotel.#1.name`, `hotel.#2.rating`): the structure stays, the text goes. A plan refers to the
// fact by that masked key (`{"$ref": "e3.hotel.#2.name"}`), and the engine maps it back here.
import type { Evidence } from './state.js';

/** A part of a key the planner may read as it is. */
const PART = /^[A-Za-z0-9_:@/+=-]{1,40}$/;

/** Each fact key of the evidence, masked: the planner's name for it, and the key itself. */
export function maskedKeys(facts: Evidence['facts']): { masked: string; key: string }[] {
  const handles = new Map<string, string>();
  return Object.keys(facts).map((key) => ({
    key,
    masked: key
      .split('.')
      .map((part) => {
        if (PART.test(part)) return part;
        let handle = handles.get(part);
        if (!handle) {
          handle = `#${handles.size + 1}`;
          handles.set(part, handle);
        }
        return handle;
      })
      .join('.'),
  }));
}

/** The key a masked key names in this evidence (a key that needed no mask names itself). */
export function unmaskedKey(facts: Evidence['facts'], masked: string): string | undefined {
  if (Object.hasOwn(facts, masked) && !masked.includes('#')) return masked;
  return maskedKeys(facts).find((k) => k.masked === masked)?.key;
}
