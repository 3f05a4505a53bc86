// What an approver is shown beside the call (ToolContract.display): the domain's labelled facts,
// such as the amount that will move and the ledger's word on the transfer. Workflow code like
// every domain callback. The hook sees the call's arguments without its narrative ones (the
// model's own words, which may echo a log line) and the facts of the evidence about the call's
// subject, never quoted text; what it returns is cut to a small size, a hook that throws or
// returns something else is dropped. Before its lines come the engine's own, when the person is
// asked about values no trusted source vouches for: each value and where the run saw it, how a
// value was derived, what an argument cited. Those are kept whole (a domain line of the same
// name does not replace one). All of it is signed with the call (approvals.ts approvalDigest).
import type { ToolContract } from '../tool-contract.js';
import type { PlannedCall, RunState } from './state.js';
import { evidenceAbout } from './subject.js';

/** An approval card is read at a glance: a few short lines, not a report. */
export const MAX_DISPLAY_ENTRIES = 12;
export const MAX_DISPLAY_KEY_CHARS = 40;
export const MAX_DISPLAY_VALUE_CHARS = 200;
/**
 * The engine's own lines (where an unvouched value was seen, how a value was derived, what an
 * argument cited) are what the person decides on: each is kept whole up to the size the engine
 * builds it to (derivation.ts), so the last operand's source is not cut off.
 */
export const MAX_ENGINE_LINE_CHARS = 400;

export function displayFacts(
  state: RunState,
  contract: ToolContract,
  call: PlannedCall,
  now: number,
  unvouched: readonly { value: string; origin: string }[] = [],
): Record<string, string> | undefined {
  // First where each value without a trusted source was seen (an `against: ` line: the card sets it
  // apart as arguing against the call): the question the person is asked.
  const origins = Object.fromEntries([
    ...unvouched
      .slice(0, MAX_DISPLAY_ENTRIES / 2)
      .map((u, i) => [`against: unvouched value ${i + 1}`, `${JSON.stringify(u.value).slice(0, 80)}, from ${u.origin}`]),
    // ...and how a derived argument was computed, from what.
    ...Object.entries(call.derived ?? {}).map(([name, line]) => [`derived ${name}`, line]),
    // ...and the source each vouched-for argument cited.
    ...Object.entries(call.cited ?? {}).map(([name, line]) => [`source of ${name}`, line]),
  ]);
  if (!contract.display) return bounded(origins);
  try {
    const raw = contract.display(withoutNarrative(call.args, contract.narrativeArgs), evidenceAbout(state, call.subject ?? '', now));
    const domainLines = raw && typeof raw === 'object' && !Array.isArray(raw) ? Object.entries(raw as Record<string, unknown>) : [];
    // The engine's lines first, and a domain's line of the same name does not replace one.
    return bounded(Object.fromEntries([...Object.entries(origins), ...domainLines.filter(([k]) => !Object.hasOwn(origins, k))]), Object.keys(origins));
  } catch {
    return bounded(origins);
  }
}

function withoutNarrative(args: unknown, narrative: string[] | undefined): unknown {
  if (!narrative?.length || !args || typeof args !== 'object' || Array.isArray(args)) return args;
  return Object.fromEntries(Object.entries(args as Record<string, unknown>).filter(([k]) => !narrative.includes(k)));
}

/** At most MAX_DISPLAY_ENTRIES one-line entries; the engine's own (`engineKeys`, all of them when not given) may be longer. */
function bounded(raw: unknown, engineKeys?: readonly string[]): Record<string, string> | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  // A Map, so a key such as `__proto__` is a key like any other.
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (out.size >= MAX_DISPLAY_ENTRIES) break;
    if (typeof value !== 'string') continue;
    const k = oneLine(key, MAX_DISPLAY_KEY_CHARS);
    const v = oneLine(value, !engineKeys || engineKeys.includes(key) ? MAX_ENGINE_LINE_CHARS : MAX_DISPLAY_VALUE_CHARS);
    if (k && v && !out.has(k)) out.set(k, v);
  }
  return out.size ? Object.fromEntries(out) : undefined;
}

/** One line, no control characters, at most `max` characters. */
function oneLine(text: string, max: number): string {
  const flat = text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
