// Which facts may vouch for an argument, and how values compare: the one place that says so.
// provenance.ts (an argument's source) and derived-args.ts (a derivation's operands) both read
// the list this file makes; neither decides on its own what "trusted" means.
import type { Domain } from '../contract.js';
import type { ToolContract } from '../tool-contract.js';
import { viewOf } from './subject.js';
import type { RunState } from './state.js';

/** A fact that may vouch for an argument, with the kind it vouches for (if its read is the authority on one). */
export interface TrustedFact {
  evidenceId: string;
  key: string;
  value: string | number;
  kind?: string;
}

/** `e3.scheduled.7.recipient` -> evidence `e3`, key `scheduled.7.recipient`: how a fact is cited. Anything else is no fact reference. */
export function factReference(ref: string): { evidenceId: string; key: string } | undefined {
  const fact = /^(e\d+)\.([\s\S]+)$/.exec(ref);
  return fact ? { evidenceId: fact[1] as string, key: fact[2] as string } : undefined;
}

/** Evidence whose facts may vouch: a fresh, successful answer of the system of record. */
export function isTrustedEvidence(e: RunState['evidence'][number], now: number): boolean {
  const view = viewOf(e, now);
  return view.status === 'ok' && view.fresh && view.authority === 'authoritative';
}

/**
 * The one rule for which facts vouch: a string or number fact of trusted evidence. Its kind counts
 * only if its read lists it in vouchesFor (the purpose it is the authority on). A kinded fact
 * whose value an effect of this run carried on a person's word, in an argument of that kind,
 * vouches for nothing: the record the run's own effect left (an account it paid once because a
 * person said yes) is not a new source for the next effect. A value the gate vouched for when the
 * effect carried it had a source before the effect, and keeps it (a second user added to the
 * channel the first went to).
 */
export function trustedFacts(state: RunState, domain: Pick<Domain, 'tools'>, now: number): TrustedFact[] {
  const carried = carriedByEffects(state, domain);
  const out: TrustedFact[] = [];
  for (const e of state.evidence) {
    if (!isTrustedEvidence(e, now)) continue;
    const tool = domain.tools.find((t) => t.name === e.tool);
    for (const [key, value] of Object.entries(e.facts)) {
      if (typeof value !== 'string' && typeof value !== 'number') continue;
      const named = kindOrNone(tool?.factKind, key);
      const kind = named !== undefined && tool?.vouchesFor?.includes(named) ? named : undefined;
      if (kind !== undefined && carried.get(kind)?.has(spelled(value))) continue;
      out.push({ evidenceId: e.id, key, value, ...(kind !== undefined ? { kind } : {}) });
    }
  }
  return out;
}

/** The values the run's effects (sent, or in doubt) carried in kinded arguments on a person's word, by kind, as `spelled` writes them. */
function carriedByEffects(state: RunState, domain: Pick<Domain, 'tools'>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const effect of state.effects) {
    // Settled as never having happened, it left no record behind.
    if (effect.status === 'not_applied' || effect.status === 'failed' || !effect.onPersonsWord?.length) continue;
    const contract = domain.tools.find((t) => t.name === effect.tool);
    if (!contract) continue;
    const personal = new Set(effect.onPersonsWord);
    for (const { kind, value } of kindedArgs(contract, effect.args))
      if (personal.has(String(value))) out.set(kind, (out.get(kind) ?? new Set()).add(spelled(value)));
  }
  return out;
}

/** The kind a read's factKind gives `key`; a hook that is missing or throws names none. */
export function kindOrNone(kindOf: ((key: string) => string | undefined) | undefined, key: string): string | undefined {
  try {
    return kindOf?.(key);
  } catch {
    return undefined;
  }
}

/**
 * A value as a kind compares it: a number by its value (`100` is `100.0`), text as text without
 * case or spaces (an IBAN in groups of four is the IBAN). Text is never read as a number: two
 * 20-digit account numbers that differ in the last digit, or by a leading zero, are two accounts,
 * though `Number` would make them one.
 */
export function spelled(value: string | number | boolean | null): string {
  if (typeof value === 'number') return `#${value}`;
  return `'${String(value).replace(/\s+/g, '').toLowerCase()}`;
}

/** The top-level arguments whose contract names their kind, one entry per scalar leaf. */
export function kindedArgs(contract: ToolContract, args: unknown): { name: string; kind: string; value: string | number }[] {
  const kinds = (contract.argKinds ?? {}) as Record<string, string | undefined>;
  if (!args || typeof args !== 'object' || Array.isArray(args)) return [];
  return Object.entries(args as Record<string, unknown>).flatMap(([name, value]) => {
    const kind = kinds[name];
    return kind ? leaves(value, new Set()).map((leaf) => ({ name, kind, value: leaf })) : [];
  });
}

/** String and number leaves of the arguments, outside the `skip`ped top-level ones. */
export function leaves(args: unknown, skip: ReadonlySet<string>): (string | number)[] {
  const out: (string | number)[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string' || typeof v === 'number') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  if (args && typeof args === 'object' && !Array.isArray(args)) {
    for (const [key, value] of Object.entries(args)) if (!skip.has(key)) walk(value);
  } else {
    walk(args);
  }
  return out;
}

type Note = Extract<RunState['transcript'][number], { kind: 'note' }>;

/**
 * The notes whose words are a person's: signed, verified, for this run. Not an amendment: that is
 * the approver's word on the one call they amended (approvals.ts onAmended), which they decide on
 * anyway; what it says, an extraction may have put on the card.
 */
export function personsNotes(state: Pick<RunState, 'transcript'>): Note[] {
  return state.transcript.flatMap((t) => (t.kind === 'note' && t.trusted && t.amends === undefined ? [t] : []));
}

/**
 * Whether a person asked for the run in a signed request (taken before the first proposal) and its
 * model's replies did not come with the start: what a plan's own values rest on in shape `plan`.
 * Without it, whoever started the run chose the planner's input (the case) or its replies
 * (the `scripted` adapter), and a note sent later came after the planner was asked.
 */
export function askedInWriting(state: Pick<RunState, 'transcript' | 'scriptedStart'>): boolean {
  return state.scriptedStart !== true && personsNotes(state).some((n) => n.request === true);
}
