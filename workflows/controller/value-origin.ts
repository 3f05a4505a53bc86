// Where a value nothing vouches for came from, in words for the person a card asks: the read whose
// text held it, an unsigned note, a fact that does not vouch for it, a signed note's words, or
// nowhere (the model wrote it). Only said, never a source: provenance.ts decides what vouches.
import { compactJson } from './decision.js';
import { EXTRACTED } from './plan-extraction.js';
import type { RunState } from './state.js';
import { viewOf } from './subject.js';
import { personsNotes, spelled } from './trusted-facts.js';

/**
 * Where the card says a value came from when a trusted source holds it but the call did not cite
 * that source: the source, and what the call cited instead (a citation that failed is not the
 * fact's fault, and the card must not say the fact does not vouch).
 */
export function heldBy(reference: string, cited: string | string[] | undefined): string {
  return cited ? `${reference} holds it, but the call cited ${compactJson(cited, 80)}` : `an uncited value that ${reference} holds`;
}

/**
 * Where the run saw a value it cannot vouch for, in words for a person deciding on it: the read
 * (tool, arguments, evidence id) whose outside text held it, an unsigned note, a fact that does
 * not vouch for it, a longer fact it sits inside, a signed note's words, or nowhere at all (the
 * model wrote it).
 */
export function originOf(state: RunState, value: string, now: number): string {
  const extracted = state.evidence.find((e) => e.tool === EXTRACTED && e.status === 'ok' && spelled(String(e.facts.value)) === spelled(value));
  if (extracted) return `${extracted.source}, asked for ${compactJson((extracted.args as { want?: unknown } | undefined)?.want ?? '', 120)} (${extracted.id})`;
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
  const said = personsNotes(state).find((t) => holds(t.text));
  if (said) return `the words of a note ${said.by} signed (words vouch for no payee, amount or other kinded value; a typed field does)`;
  return 'no source in the run: the model wrote it';
}
