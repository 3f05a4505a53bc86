// The information-flow rule, in one place. Every value a call carries to the world (an effect's
// arguments, or a read's that reaches outside the run) must trace to a source the engine knows:
//
//   1. the case itself, or a fact of a fresh read that the domain declares the authority on that
//      kind of value for that purpose (ToolContract.vouchesFor; trusted-facts.ts says which facts
//      vouch, once: never one third parties can write, never one this run's own effects carried);
//   2. a typed field of a statement a person signed (the start request, a note, an amendment);
//   3. a derivation the tool declares, over operands that trace by 1 or 2 (derived-args.ts);
//   4. a person's decision on this very call, and on nothing after it.
//
// Every argument cites its source by reference (cited-sources.ts) and is exactly what that
// source holds; one with a kind (ToolContract.argKinds: a payee, an amount) is compared as the
// kind spells it, never through Number, and only a source of its kind vouches for it. A trusted
// value that merely equals an argument is not its source: the model is told what to cite, and
// nobody is asked. The domain may cite for the model: an argument it declares to be the case
// (ToolContract.caseArgs) cites the case. The one value that needs no citation at all is one the
// tool's own schema lists (an enum the domain wrote; which of them is right is the precondition's
// question). Free text
// vouches for no value (to mention an account is not to ask to pay it); a link or account
// number inside a narrative argument leaves only from a trusted source (carried-text.ts).
//
// A value with no source is refused, or, if the domain says so (Domain.askWhenUnvouched), put to
// a person with where the run saw it, the model's arithmetic shown as its own: `judgeFlow` below.
import type { Domain } from '../contract.js';
import type { ApprovalRule, ToolContract } from '../tool-contract.js';
import { caseSubject } from '../contract.js';
import { compactJson, type Derive } from './decision.js';
import { checkDerived, NO_DERIVATIONS } from './derived-args.js';
import { shapeOf, type PlannedCall, type RunState } from './state.js';
import { subjectId } from './subject.js';
import { checkCitation, citableFor, type SourceRefs } from './cited-sources.js';
import { askedInWriting, isTrustedEvidence, kindedArgs, leaves, personsNotes, trustedFacts, type TrustedFact } from './trusted-facts.js';
import { carriedOut, untrustedTexts } from './carried-text.js';
import { heldBy, originOf } from './value-origin.js';
import { callSignature } from './bounds.js';
import { shownWhenPlanned } from './planner-view.js';
import { EXTRACTED } from './plan-extraction.js';

/** Why a plan's own values vouch for nothing in shape plan: nobody asked in writing, or nobody sealed the reply that wrote it. */
const UNASKED_PLAN = 'a plan vouches for what it wrote only in a run a person asked for in a signed request, with a model the start did not script';
const UNSEALED_PLAN = "a plan carried over from a build that took the planner's reply unsealed vouches for nothing it wrote";

/** A value no trusted source vouches for, and where the run saw it: what a person is shown when asked. */
export interface Unvouched {
  value: string;
  origin: string;
}

/**
 * `unvouched`: every such value of the call (the message names the first), for a card that asks a
 * person. `citable`: every one of them is a kinded value that cites nothing though a trusted source
 * of its kind holds it; the model is told which, and no person is asked. `derived`: the arguments a
 * derivation computes, with its line; `cited`: the arguments their cited source vouches for, with
 * its label.
 */
export type ProvenanceVerdict = { derived?: Record<string, string>; cited?: Record<string, string> } & (
  { ok: true } | { ok: false; message: string; unvouched: Unvouched[]; citable: boolean }
);

/** What provenance judges of a proposed call: its arguments, and what the proposal says of their sources. */
export interface Proposal {
  args: unknown;
  derive?: Record<string, Derive> | undefined;
  sources?: Record<string, SourceRefs> | undefined;
}

/** Why a call goes to a person though its contract alone would not send it there, and under which rule. */
export interface Asking {
  rule: ApprovalRule;
  /** Values no trusted source vouches for, with where the run saw each (shown on the card). */
  unvouched: Unvouched[];
}

/** What the rule says of one call: it goes (labelled; perhaps to a person first), or it is refused. */
export type FlowVerdict =
  { ok: true; call: PlannedCall; ask?: Asking } | { ok: false; code: 'cite_source' | 'tainted_argument' | 'ask_alone'; message: string; signature?: string };

/**
 * Refuse or ask. `alone`: no other call is proposed beside this one (a person decides on one call
 * at a time, with nothing else in flight).
 */
export function judgeFlow(
  state: RunState,
  domain: Pick<Domain, 'tools' | 'askWhenUnvouched'>,
  contract: ToolContract,
  proposal: Proposal & { call: PlannedCall },
  alone: boolean,
  now: number,
): FlowVerdict {
  const verdict = checkProvenance(state, domain, contract, proposal, now);
  // The checked arithmetic and the cited sources go with the call: on its record, and on the card if a person is asked.
  const call = { ...proposal.call, ...(verdict.derived ? { derived: verdict.derived } : {}), ...(verdict.cited ? { cited: verdict.cited } : {}) };
  if (verdict.ok) return { ok: true, call };
  const signature = callSignature(call.tool, call.args);
  // Uncited values a trusted source holds: the model cites them, nobody is asked.
  if (verdict.citable) return { ok: false, code: 'cite_source', message: verdict.message };
  const domainRule = domain.askWhenUnvouched;
  if (!domainRule) return { ok: false, code: 'tainted_argument', message: verdict.message, signature };
  if (!alone) return { ok: false, code: 'ask_alone', message: `${verdict.message}; a person must decide on ${call.tool}: propose it alone`, signature };
  // An effect with an approval rule of its own is decided under that rule; anything else under the domain's.
  const rule = contract.kind === 'effect' ? (contract.approval ?? domainRule) : domainRule;
  return { ok: true, call, ask: { rule, unvouched: verdict.unvouched } };
}

export function checkProvenance(state: RunState, domain: Pick<Domain, 'tools'>, contract: ToolContract, proposal: Proposal, now: number): ProvenanceVerdict {
  const { args, derive = {}, sources = {} } = proposal;
  const narrative = new Set(contract.narrativeArgs ?? []);
  // The one list of facts that may vouch, made once for every check below.
  const facts = trustedFacts(state, domain, now);
  const trusted = trustedValues(state, facts, now);
  const notes = personsNotes(state);
  const signedNotes = notes.map((n) => n.text);
  // Only a narrative argument carries text out (carried-text.ts).
  const carried = narrative.size ? carriedOut(state, args, narrative, trusted, signedNotes) : [];
  const messages = carried.map((c) => c.message);
  const unvouched: Unvouched[] = carried.map((c) => ({ value: c.token, origin: originOf(state, c.token, now) }));
  // Shape plan: the planner saw trusted input only, so a value it wrote cites the plan unless it
  // cites something else; but only in a run a person asked for in a signed request (askedInWriting).
  const planShape = shapeOf(state) === 'plan';
  const asked = askedInWriting(state);
  const plan = planShape && asked && state.plan?.sealed ? shownWhenPlanned(state, state.plan) : undefined;
  const withoutPlan = !planShape || plan ? undefined : asked && state.plan ? UNSEALED_PLAN : UNASKED_PLAN;
  const scope = { facts, notes, caseId: state.caseId, ...(plan ? { plan } : {}), ...(withoutPlan ? { withoutPlan } : {}) };
  // Shape plan: a number the planner wrote is the plan's, as any literal it writes is (cited-sources.ts).
  const planned = plan && ((value: number) => checkCitation('plan', value, undefined, scope));
  // Only a call with a derivation has one to check (derived-args.ts).
  const derivedArgs = Object.keys(derive).length
    ? checkDerived(facts, contract, args, derive, notes, planned, (reference) => extractedOperand(state, reference))
    : NO_DERIVATIONS;
  messages.push(...derivedArgs.problems);
  const derived = Object.keys(derivedArgs.lines).length ? { derived: derivedArgs.lines } : {};
  // The model's own arithmetic holds, but only a person can say it is the right arithmetic.
  for (const name of derivedArgs.formulas) {
    const value = String((args as Record<string, unknown>)[name]);
    const declared = Object.keys(contract.derivations ?? {});
    const rules = declared.length ? ` (${contract.name} declares ${declared.join(', ')})` : '';
    const shown = `the ${name} ${JSON.stringify(value).slice(0, 80)}`;
    messages.push(
      {
        own: `${shown} is the model's own arithmetic; only a derivation the tool declares vouches for a value${rules}`,
        extracted: `${shown} is computed from a value a model extracted from text nobody vouches for`,
        model: `${shown} is computed from a number the model wrote; only an operand that cites a trusted fact vouches for it`,
      }[derivedArgs.unvouched[name] ?? 'own'],
    );
    unvouched.push({ value, origin: derivedArgs.lines[name] ?? "the model's own arithmetic" });
  }
  const settled = new Set([...derivedArgs.vouched, ...derivedArgs.formulas]);
  const kinded = kindedArgs(contract, args).filter((k) => !settled.has(k.name));
  // A kinded value is vouched for only by the source it cites; a trusted value that merely equals
  // it is named to the model as what it could cite, and vouches for nothing.
  const cited: Record<string, string> = {};
  // A value the engine computed from a plan's derivation is not one the planner wrote: a derivation that does not hold cites nothing.
  const uncitedFor = (name: string) => (plan && !Object.hasOwn(derive, name) ? 'plan' : undefined);
  let uncitedCount = 0;
  // How many leaves each kinded argument has, and how many of them were judged: a list is held item by item (itemRefs).
  const counted = new Map<string, number>();
  for (const { name } of kinded) counted.set(name, (counted.get(name) ?? 0) + 1);
  const seen = new Map<string, number>();
  for (const { name, kind, value } of kinded) {
    const text = String(value);
    const index = seen.get(name) ?? 0;
    seen.set(name, index + 1);
    const refs = itemRefs(Object.hasOwn(sources, name) ? sources[name] : uncitedFor(name), index, counted.get(name) ?? 1);
    const citation = refs === undefined ? undefined : checkCitation(refs, value, kind, scope);
    if (citation?.ok) {
      cited[name] = cited[name] === undefined ? citation.label : `${cited[name]}; ${citation.label}`;
      continue;
    }
    if (unvouched.some((u) => u.value === text)) continue;
    const shown = JSON.stringify(text).slice(0, 80);
    const hint = citableFor(value, kind, scope);
    if (citation) {
      messages.push(`the ${name} ${shown} cites ${compactJson(refs, 100)}, which does not vouch for it: ${citation.problem}`);
    } else if (hint.length) {
      uncitedCount++;
      messages.push(
        `the ${name} ${shown} cites no source; ${hint.slice(0, 3).join(' or ')} holds it (kind ${kind}): cite it (sources: {"${name}": "${hint[0]}"})`,
      );
    } else {
      messages.push(`the ${name} ${shown} matches no trusted fact of kind ${kind} (nor a signed ${kind} field)`);
    }
    unvouched.push({ value: text, origin: hint.length ? heldBy(hint[0] as string, citation ? refs : undefined) : originOf(state, text, now) });
  }
  // An argument without a kind is held to the source it cites, exactly. One that cites none is
  // vouched for only if the tool's own schema lists it (one of a closed set the domain wrote:
  // which one is the precondition's question); a trusted value that merely equals it is named to
  // the model as what to cite, and vouches for nothing.
  const kindedNames = new Set([...kinded.map((k) => k.name), ...settled]);
  const plain = args && typeof args === 'object' && !Array.isArray(args) ? Object.entries(args as Record<string, unknown>) : [['arguments', args] as const];
  for (const [name, value] of plain) {
    if (narrative.has(name) || kindedNames.has(name)) continue;
    // An argument the domain declares to be the case cites the case, whatever the proposal says.
    const declared = contract.caseArgs?.includes(name) === true;
    const named = declared ? 'case' : Object.hasOwn(sources, name) ? sources[name] : uncitedFor(name);
    const listed = named === undefined ? listedValues(contract, name) : undefined;
    const items = leaves(value, new Set());
    for (const [index, leaf] of items.entries()) {
      const refs = itemRefs(named, index, items.length);
      const text = String(leaf);
      if (listed?.has(text) || unvouched.some((u) => u.value === text)) continue;
      const shown = JSON.stringify(text).slice(0, 80);
      if (refs !== undefined) {
        const citation = checkCitation(refs, leaf, undefined, scope);
        // The domain's own declaration needs no label: the contract is its receipt.
        if (citation.ok && !declared) cited[name] = cited[name] === undefined ? citation.label : `${cited[name]}; ${citation.label}`;
        if (citation.ok) continue;
        messages.push(`the ${name} ${shown} cites ${compactJson(refs, 100)}, which does not vouch for it: ${citation.problem}`);
        const holds = citableFor(leaf, undefined, scope);
        unvouched.push({ value: text, origin: holds.length ? heldBy(holds[0] as string, refs) : originOf(state, text, now) });
        continue;
      }
      const hint = citableFor(leaf, undefined, scope);
      if (hint.length) {
        uncitedCount++;
        messages.push(`the ${name} ${shown} cites no source; ${hint.slice(0, 3).join(' or ')} holds it: cite it (sources: {"${name}": "${hint[0]}"})`);
        unvouched.push({ value: text, origin: `an uncited value that ${hint[0]} holds` });
        continue;
      }
      const untrusted = untrustedTexts(state).some((t) => t.includes(text));
      messages.push(
        untrusted
          ? `the ${name} ${shown} appears only in untrusted text; an effect's arguments must come from the case, an authoritative fact or a signed field`
          : `the ${name} ${shown} traces to no trusted source (the case, a fresh authoritative fact or a signed field)`,
      );
      unvouched.push({ value: text, origin: originOf(state, text, now) });
    }
  }
  const labels = { ...derived, ...(Object.keys(cited).length ? { cited } : {}) };
  const [first] = messages;
  if (first === undefined) return { ok: true, ...labels };
  return { ok: false, message: `${contract.name}: ${first}`, unvouched, citable: uncitedCount > 0 && uncitedCount === messages.length, ...labels };
}

/**
 * What item `index` of a list argument of `count` items cites. A list of references as long as the
 * list is one per item (a plan writes `[{"$ref": "x1"}, "emma@corp.com"]` as two sources): each
 * item is held to its own, so an extracted address cannot pass on the plan's word for its
 * neighbour. Anything else is the sources every item may cite, one that holds being enough; but
 * not the plan's word or a quote, which are one item's (a list whose items the leaves do not count
 * alike, a null among them, is no list of sources for any one).
 */
function itemRefs(refs: SourceRefs | undefined, index: number, count: number): SourceRefs | undefined {
  if (!Array.isArray(refs) || count <= 1) return refs;
  if (refs.length === count) return refs[index];
  const shared = refs.filter((r) => r !== 'plan' && r !== 'quote');
  return shared.length ? shared : undefined;
}

/**
 * The values the tool's input schema lists for a top-level argument (an enum or literals, perhaps
 * optional or nullable): the domain wrote them, so none is the model's invention. Empty for any
 * other schema.
 */
function listedValues(contract: ToolContract, name: string): Set<string> {
  const shape = (contract.input as { shape?: Record<string, unknown> }).shape;
  let field = shape && Object.hasOwn(shape, name) ? (shape[name] as ZodNode) : undefined;
  while (field?._zod?.def && WRAPPERS.has(field._zod.def.type)) field = field._zod.def.innerType;
  const def = field?._zod?.def;
  if (def?.type === 'enum') return new Set(Object.values(def.entries ?? {}).map(String));
  if (def?.type === 'literal') return new Set((def.values ?? []).map(String));
  return new Set();
}

interface ZodNode {
  _zod?: { def: { type: string; innerType?: ZodNode; entries?: Record<string, unknown>; values?: unknown[] } };
}
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'readonly']);

/** A derivation's operand that a model with no tools extracted in this run (`e7.value`), with where it came from. */
function extractedOperand(state: RunState, reference: string): { value: number; source: string } | undefined {
  const [id, key] = reference.split('.');
  const e = state.evidence.find((x) => x.id === id && x.tool === EXTRACTED && x.status === 'ok');
  const value = key === 'value' ? e?.facts.value : undefined;
  if (!e || typeof value !== 'number') return undefined;
  const from = state.evidence.find((x) => x.id === (e.args as { from?: unknown } | undefined)?.from);
  return { value, source: `read out of ${from ? `${from.tool} (${from.id})` : 'a text'} by a model with no tools; nobody vouches for it (${e.id})` };
}

/** The case, the subjects of trusted evidence and every trusted fact's value, as text: what a narrative argument may quote. */
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
