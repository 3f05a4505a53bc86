// Provenance by reference: the proposal names where each argument's value comes from, and the
// engine checks that the value is exactly what the cited source holds. The engine never goes
// looking for some trusted value that happens to be equal: that is how one cent from an
// attacker's account, or a counterparty in a history, would pass for a payee. A reference is
//
//   e3.scheduled.7.recipient   a fact of evidence e3, under that key
//   request.payee              a typed field a person signed (the request's, or a later signed note's)
//   case                       the case id the run was started for
//   plan                       shape `plan`: the planner wrote it, shown trusted input only
//                              (planner-view.ts); what a plan's call cites for a value it wrote
//   quote                      shape `plan`: the planner quoted a signed note's own words
//                              (`{"$quote": "..."}`), and the note's text holds them as written
//   model                      the model wrote it: nothing vouches, a person decides
//
// A cited fact vouches only as provenance.ts's trusted-fact rule allows (fresh, authoritative,
// of the argument's kind when it has one, not carried by this run's own effect).
import { saysAsWritten } from './says-as-written.js';
import { factReference, spelled, type TrustedFact } from './trusted-facts.js';

export type SourceRefs = string | string[];

/** What a reference came to for one value: a label for the record and card, or why it does not vouch. */
export type Citation = { ok: true; label: string } | { ok: false; problem: string };

export interface CitationScope {
  facts: readonly TrustedFact[];
  notes: readonly { by: string; text: string; fields?: Record<string, string | number | (string | number)[]> }[];
  caseId: string;
  /**
   * Shape `plan`, in a run a person asked for in a signed note: the facts the planner may have been
   * shown by value when it wrote the plan, and the values recorded with the plan (planner-view.ts
   * shownWhenPlanned). Absent otherwise, where `plan` and `quote` vouch for nothing (`withoutPlan` says why).
   */
  plan?: { shown: readonly TrustedFact[]; recorded?: ReadonlySet<string> };
  withoutPlan?: string;
}

/** Checks `value` against the references cited for it: one that holds is enough. */
export function checkCitation(refs: SourceRefs, value: string | number, kind: string | undefined, scope: CitationScope): Citation {
  const problems: string[] = [];
  for (const ref of [refs].flat()) {
    const citation = resolve(ref, value, kind, scope);
    if (citation.ok) return citation;
    problems.push(citation.problem);
  }
  return { ok: false, problem: problems.join('; ') };
}

function resolve(ref: string, value: string | number, kind: string | undefined, scope: CitationScope): Citation {
  const shown = JSON.stringify(ref).slice(0, 80);
  if (ref === 'model') return { ok: false, problem: 'the model cites itself' };
  if (ref === 'plan') {
    if (!scope.plan) return { ok: false, problem: scope.withoutPlan ?? NO_PLAN };
    // A value the planner was shown as a fact may have come from that fact: it cites the fact, whose kind then counts.
    const seen = scope.plan.shown.find((f) => spelled(f.value) === spelled(value));
    const quote = quotingNote(scope, value) ? `, or quotes the signed note that says it, {"$quote": ${JSON.stringify(value).slice(0, 80)}}` : '';
    if (seen) {
      return {
        ok: false,
        problem: `the planner was shown it as ${seen.evidenceId}.${seen.key}: a plan refers to a fact, {"$ref": "${seen.evidenceId}.${seen.key}"}${quote}`,
      };
    }
    // ...and so may one whose read is no longer kept: recorded with the plan, it still cannot be the plan's own.
    if (scope.plan.recorded?.has(spelled(value)))
      return { ok: false, problem: `the planner was shown it as a fact when it planned: a plan refers to the fact${quote}` };
    return { ok: true, label: 'the plan, written from trusted input only' };
  }
  if (ref === 'quote') {
    if (!scope.plan) return { ok: false, problem: scope.withoutPlan ?? NO_PLAN };
    // The planner says which of the person's words is which value, as it does for one it writes;
    // a fact it was shown of the same value does not matter, the person's own words hold it.
    const note = quotingNote(scope, value);
    return note
      ? { ok: true, label: `the words of a note ${note.by} signed, quoted by the plan` }
      : { ok: false, problem: `no signed note says ${JSON.stringify(String(value)).slice(0, 80)} as written` };
  }
  if (ref === 'case') {
    if (kind !== undefined) return { ok: false, problem: `the case id is no ${kind}` };
    return String(value) === scope.caseId
      ? { ok: true, label: 'the case' }
      : { ok: false, problem: `the case is ${scope.caseId}, not ${String(value).slice(0, 80)}` };
  }
  const field = /^request\.([A-Za-z0-9_-]{1,80})$/.exec(ref)?.[1];
  if (field !== undefined) {
    if (kind !== undefined && field !== kind) return { ok: false, problem: `${shown} is a signed ${field} field, not a ${kind}` };
    const note = signedFieldHolding(scope.notes, field, value);
    return note
      ? { ok: true, label: `signed ${field} field by ${note.by}` }
      : { ok: false, problem: `no signed ${field} field is ${String(value).slice(0, 80)}` };
  }
  const fact = factReference(ref);
  if (!fact) return { ok: false, problem: `${shown} is not a reference (e<n>.<fact key>, request.<field>, case, plan, quote or model)` };
  const { evidenceId, key } = fact;
  const found = scope.facts.find((f) => f.evidenceId === evidenceId && f.key === key);
  if (!found) return { ok: false, problem: `${shown} is no fresh authoritative fact of this run` };
  if (spelled(found.value) !== spelled(value))
    return { ok: false, problem: `${shown} is ${JSON.stringify(found.value).slice(0, 80)}, not ${JSON.stringify(value).slice(0, 80)}` };
  if (kind !== undefined && found.kind !== kind) return { ok: false, problem: `${shown} is not a fact its read vouches for as kind ${kind}` };
  return { ok: true, label: `fact ${key} (${evidenceId})` };
}

/** Why `plan` and `quote` vouch for nothing outside shape plan. */
const NO_PLAN = 'only a run of shape plan has a planner shown trusted input only';

/** The signed note that says `value` as written, if any (only words are quoted, never a number). */
function quotingNote(scope: CitationScope, value: string | number): CitationScope['notes'][number] | undefined {
  return typeof value === 'string' ? scope.notes.find((n) => saysAsWritten(n.text, value)) : undefined;
}

/** The signed note whose typed `field` holds `value`, as the kind spells it. */
function signedFieldHolding(notes: CitationScope['notes'], field: string, value: string | number): CitationScope['notes'][number] | undefined {
  return notes.find((n) => [n.fields?.[field] ?? []].flat().some((f) => spelled(f) === spelled(value)));
}

/**
 * For a value that cites nothing: the references the model could cite. For a kinded value, the
 * trusted facts of its kind that hold it and a signed field of that kind; for one without a kind,
 * the case, any trusted fact and any signed field that holds it. A hint for the model's next
 * proposal, never a source.
 */
export function citableFor(value: string | number, kind: string | undefined, scope: CitationScope): string[] {
  const same = (f: unknown) => (typeof f === 'string' || typeof f === 'number') && spelled(f) === spelled(value);
  const facts = scope.facts.filter((f) => (kind === undefined || f.kind === kind) && same(f.value)).map((f) => `${f.evidenceId}.${f.key}`);
  if (kind !== undefined) return signedFieldHolding(scope.notes, kind, value) ? [...facts, `request.${kind}`] : facts;
  const fields = new Set(
    scope.notes.flatMap((n) => Object.entries(n.fields ?? {}).flatMap(([field, v]) => ([v].flat().some(same) ? [`request.${field}`] : []))),
  );
  return [...(String(value) === scope.caseId ? ['case'] : []), ...facts, ...fields];
}
