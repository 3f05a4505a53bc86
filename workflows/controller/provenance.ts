// Argument provenance: every value an effect would carry to the world must come from the case
// itself, an authoritative fact the run observed fresh, or a note an operator signed. A value
// that only untrusted text supplied (a log line, a replica note, an unsigned note) may not
// steer an effect: that is how an injected instruction would pick the target.
//
// An argument with a kind (ToolContract.argKinds: a payee, an amount) is held to more: a fact of
// that kind from a read that is the authority on it (vouchesFor), compared as the kind spells it
// and never through Number; or a typed field of that kind a person signed. Free text vouches for
// no kinded value (to mention an account is not to ask to pay it), and nor does a fact whose value
// this run's own effects carried (trustedFacts: the one rule for which facts vouch). A value that
// merely equals something trusted elsewhere, of another kind, is not vouched for.
import type { Domain, ToolContract } from '../contract.js';
import { caseSubject } from '../contract.js';
import { compactJson, type Derive } from './decision.js';
import { checkDerived } from './derived-args.js';
import { viewOf } from './observation.js';
import type { RunState } from './state.js';
import { subjectId } from './subject.js';
import { isTrustedEvidence, kindedArgs, leaves, spelled, trustedFacts, type TrustedFact } from './trusted-facts.js';

/** A value no trusted source vouches for, and where the run saw it: what a person is shown when asked. */
export interface Unvouched {
  value: string;
  origin: string;
}

/**
 * `unvouched`: every such value of the call (the message names the first), for a card that asks a
 * person. `derived`: the arguments vouched for by a derivation that holds, with its line.
 */
export type ProvenanceVerdict =
  { ok: true; derived?: Record<string, string> } | { ok: false; message: string; unvouched: Unvouched[]; derived?: Record<string, string> };

export function checkProvenance(
  state: RunState,
  domain: Pick<Domain, 'tools'>,
  contract: ToolContract,
  args: unknown,
  now: number,
  derive: Record<string, Derive> = {},
): ProvenanceVerdict {
  const narrative = new Set(contract.narrativeArgs ?? []);
  // The one list of facts that may vouch, made once for every check below.
  const facts = trustedFacts(state, domain, now);
  const trusted = trustedValues(state, facts, now);
  const notes = state.transcript.flatMap((t) => (t.kind === 'note' && t.trusted ? [t] : []));
  const signedNotes = notes.map((n) => n.text);
  const carried = carriedOut(state, args, narrative, trusted, signedNotes);
  const messages = carried.map((c) => c.message);
  const unvouched: Unvouched[] = carried.map((c) => ({ value: c.token, origin: originOf(state, c.token, now) }));
  const derivedArgs = checkDerived(facts, contract, args, derive, notes);
  messages.push(...derivedArgs.problems);
  const derived = Object.keys(derivedArgs.lines).length ? { derived: derivedArgs.lines } : {};
  // The model's own arithmetic holds, but only a person can say it is the right arithmetic.
  for (const name of derivedArgs.formulas) {
    const value = String((args as Record<string, unknown>)[name]);
    const declared = Object.keys(contract.derivations ?? {});
    const rules = declared.length ? ` (${contract.name} declares ${declared.join(', ')})` : '';
    messages.push(`the ${name} ${JSON.stringify(value).slice(0, 80)} is the model's own arithmetic; only a derivation the tool declares vouches for a value${rules}`);
    unvouched.push({ value, origin: derivedArgs.lines[name] ?? "the model's own arithmetic" });
  }
  const settled = new Set([...derivedArgs.vouched, ...derivedArgs.formulas]);
  const kinded = kindedArgs(contract, args).filter((k) => !settled.has(k.name));
  const byKind = trustedByKind(facts);
  for (const { name, kind, value } of kinded) {
    const text = String(value);
    const stated = notes.some((n) => [n.fields?.[kind] ?? []].flat().some((field) => spelled(field) === spelled(value)));
    if (byKind.get(kind)?.has(spelled(value)) || text === state.caseId || stated) continue;
    if (unvouched.some((u) => u.value === text)) continue;
    messages.push(`the ${name} ${JSON.stringify(text).slice(0, 80)} matches no trusted fact of kind ${kind} (nor the case or a signed ${kind} field)`);
    unvouched.push({ value: text, origin: originOf(state, text, now) });
  }
  const kindedNames = new Set([...kinded.map((k) => k.name), ...settled]);
  for (const value of leaves(args, new Set([...narrative, ...kindedNames]))) {
    const text = String(value);
    if (trusted.has(text) || signedNotes.some((n) => n.includes(text)) || unvouched.some((u) => u.value === text)) continue;
    const untrusted = untrustedTexts(state).some((t) => t.includes(text));
    messages.push(
      untrusted
        ? `the value ${JSON.stringify(text).slice(0, 80)} appears only in untrusted text; an effect's arguments must come from the case, an authoritative fact or a signed operator note`
        : `the value ${JSON.stringify(text).slice(0, 80)} traces to no trusted source (the case, a fresh authoritative fact or a signed operator note)`,
    );
    unvouched.push({ value: text, origin: originOf(state, text, now) });
  }
  const [first] = messages;
  return first === undefined ? { ok: true, ...derived } : { ok: false, message: `${contract.name}: ${first}`, unvouched, ...derived };
}

/**
 * Where the run saw a value it cannot vouch for, in words for a person deciding on it: the read
 * (tool, arguments, evidence id) whose outside text held it, an unsigned note, a fact that does
 * not vouch for it, a longer fact it sits inside, a signed note's words, or nowhere at all (the
 * model wrote it).
 */
function originOf(state: RunState, value: string, now: number): string {
  const lower = value.toLowerCase();
  const holds = (text: string) => text.toLowerCase().includes(lower);
  const read = state.evidence.find((e) => e.quoted.some(holds));
  if (read) return `untrusted text of ${read.tool} ${compactJson(read.args ?? {}, 100)} (${read.id})`;
  const note = state.transcript.find((t) => t.kind === 'note' && !t.trusted && holds(t.text));
  if (note?.kind === 'note') return `an unsigned note from ${note.by}`;
  const answered = state.evidence.filter((e) => viewOf(e, now).status === 'ok');
  const same = answered.find((e) => Object.values(e.facts).some((f) => f !== null && typeof f !== 'boolean' && spelled(f) === spelled(value)));
  if (same)
    return `a fact of ${same.tool} ${compactJson(same.args ?? {}, 100)} (${same.id}) that does not vouch for it (not the authority on this kind, not fresh, or carried by this run's own effect)`;
  const inside = answered.find((e) => Object.values(e.facts).some((f) => typeof f === 'string' && holds(f)));
  if (inside) return `inside a longer value of ${inside.tool} ${compactJson(inside.args ?? {}, 100)} (${inside.id}), not a value of its own`;
  const said = state.transcript.find((t) => t.kind === 'note' && t.trusted && holds(t.text));
  if (said?.kind === 'note') return `the words of a note ${said.by} signed (words vouch for no payee, amount or other kinded value; a typed field does)`;
  return 'no source in the run: the model wrote it';
}

/**
 * What a narrative argument (a message body, a reason) may not carry out: a link (any scheme, or
 * a bare domain), an address or an account-like number (whole, or in groups of four, as IBANs
 * and cards are written) that no trusted source vouches for. The model's own words are its own,
 * and a value a trusted source holds may be quoted; but a link read on a web page (or one the
 * model made up, or read where the engine kept only part of the text) pasted into a message to a
 * colleague is data leaving on someone else's instruction.
 */
const CARRIED = new RegExp(
  [
    String.raw`[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)\]]+`, // a URL of any scheme (https, ftp, ipfs, ...)
    String.raw`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`, // an e-mail address
    String.raw`\b(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,24}\b(?:\/[^\s"'<>)\]]*)?`, // a bare domain, with or without www. and a path
    String.raw`\b[A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]{4}){2,7}(?:[ -]?[A-Z0-9]{1,4})?\b`, // an IBAN, in groups of four or not
    String.raw`\b\d{8,}\b|\b\d{4}(?:[ -]\d{4}){2,4}\b`, // an account or card number, whole or in groups of four
  ].join('|'),
  'gi',
);

function carriedOut(state: RunState, args: unknown, narrative: Set<string>, trusted: Set<string>, signedNotes: string[]): { token: string; message: string }[] {
  if (narrative.size === 0 || !args || typeof args !== 'object' || Array.isArray(args)) return [];
  // A fact vouches for a value it is, not for text it happens to contain (a channel whose name
  // someone wrote to carry a link); a person's signed words and the run's goal vouch for what they say.
  const trustedValues = new Set([...trusted].map((t) => t.toLowerCase()));
  const trustedTexts = [...signedNotes, state.goal].map((t) => t.toLowerCase());
  // ...so a link inside a longer fact is carried text, as if quoted.
  const untrusted = [...untrustedTexts(state), ...trusted];
  const out: { token: string; message: string }[] = [];
  for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
    if (!narrative.has(key) || typeof value !== 'string') continue;
    for (const match of value.match(CARRIED) ?? []) {
      const token = match.replace(/[.,;:!?]+$/, '');
      const lower = token.toLowerCase();
      if (trustedValues.has(lower) || trustedTexts.some((t) => t.includes(lower)) || out.some((o) => o.token === token)) continue;
      const where = untrusted.some((t) => t.toLowerCase().includes(lower)) ? 'which only untrusted text supplied' : 'which no trusted source holds';
      out.push({
        token,
        message: `the ${key} carries ${JSON.stringify(token).slice(0, 80)}, ${where}; a link, address or account number may leave only from a trusted source`,
      });
    }
  }
  return out;
}

/** The case, the subjects of trusted evidence and every trusted fact's value, as text (for arguments without a kind). */
function trustedValues(state: RunState, facts: readonly TrustedFact[], now: number): Set<string> {
  const out = new Set<string>([state.caseId]);
  for (const e of state.evidence) {
    if (!isTrustedEvidence(e, now)) continue;
    const subject = e.subject ?? caseSubject(state.caseId);
    out.add(subject);
    out.add(subjectId(subject));
  }
  for (const { value } of facts) out.add(String(value));
  return out;
}

function untrustedTexts(state: RunState): string[] {
  const notes = state.transcript.flatMap((t) => (t.kind === 'note' && !t.trusted ? [t.text] : []));
  return [...state.evidence.flatMap((e) => e.quoted), ...notes];
}

/** Each kind's values among the trusted facts, as `spelled` writes them. */
function trustedByKind(facts: readonly TrustedFact[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const { kind, value } of facts) if (kind) out.set(kind, (out.get(kind) ?? new Set()).add(spelled(value)));
  return out;
}
