// How a planner names a fact whose key it may not read. A read's facts are keyed partly by what
// the read returned (`hotel.Le Marais Boutique.rating`), so a key can carry text an attacker
// wrote. The planner is shown each key with its first and last parts as written when they are
// short tokens (the kind of thing and the field: `hotel`, `rating`) and every other part replaced
// by a handle: the structure stays, the text goes. Every part between is masked however it looks,
// since that is where a read's output goes, and a name the read returned with dots in it would
// otherwise split into short tokens that spell a sentence (`hotel.IGNORE.your.task.name`). A plan
// refers to the fact by that masked key (`{"$ref": "e5.hotel.#e3-2.address"}`), and the engine
// maps it back here.
//
// A handle is the run's, not one read's: it names the evidence a part first appeared in and its
// place among that evidence's masked parts (`#e3-2`, the second one e3 showed), so the same hotel
// has the same handle in its price, its rating and its address. A planner that picks the
// best-rated hotel from one read and books the address another gave joins them by the hotel
// itself, never by where each read happened to list it. Once the evidence a handle names is no
// longer kept (controller/bounds.ts), the part takes its handle from the next evidence that shows
// it, a label it never had before: a plan that still names the old one finds no fact, never another's.
import type { Evidence } from './state.js';

/** A part of a key the planner may read as it is. */
const PART = /^[A-Za-z0-9_:@/+=-]{1,40}$/;

type Facts = Evidence['facts'];

/** Whether part `i` of a key's parts is shown as written: the first or the last, and a short token. */
const shownPart = (parts: readonly string[], i: number) => (i === 0 || i === parts.length - 1) && PART.test(parts[i] as string);

/** Every part of a key that the planner is not shown, in the order it first appears in these facts. */
function maskedParts(facts: Facts): string[] {
  const masked = new Set<string>();
  for (const key of Object.keys(facts)) {
    const parts = key.split('.');
    parts.forEach((part, i) => {
      if (!shownPart(parts, i)) masked.add(part);
    });
  }
  return [...masked];
}

/** The run's handle for each masked part of its evidence (kept evidence, oldest first). */
export function runHandles(evidence: readonly Pick<Evidence, 'id' | 'facts'>[]): Map<string, string> {
  const handles = new Map<string, string>();
  for (const e of evidence) {
    maskedParts(e.facts).forEach((part, i) => {
      if (!handles.has(part)) handles.set(part, `#${e.id}-${i + 1}`);
    });
  }
  return handles;
}

/** Each fact key of one evidence, masked with the run's handles: the planner's name for it, and the key itself. */
export function maskedKeys(facts: Facts, handles: ReadonlyMap<string, string>): { masked: string; key: string }[] {
  return Object.keys(facts).map((key) => {
    const parts = key.split('.');
    return { key, masked: parts.map((part, i) => (shownPart(parts, i) ? part : (handles.get(part) ?? '#?'))).join('.') };
  });
}

/**
 * The key a masked key names in `facts`, one evidence of the run whose kept evidence is `kept`. A
 * key that needed no mask names itself, and the run's handles are worked out only for one that did.
 */
export function unmaskedKey(facts: Facts, masked: string, kept: readonly Pick<Evidence, 'id' | 'facts'>[]): string | undefined {
  if (Object.hasOwn(facts, masked) && !masked.includes('#')) return masked;
  if (masked.includes('#?')) return undefined;
  return maskedKeys(facts, runHandles(kept)).find((k) => k.masked === masked)?.key;
}
