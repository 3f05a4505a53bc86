// Argument provenance: every value an effect would carry to the world must come from the case
// itself, an authoritative fact the run observed fresh, or a note an operator signed. A value
// that only untrusted text supplied (a log line, a replica note, an unsigned note) may not
// steer an effect: that is how an injected instruction would pick the target.
import type { ToolContract } from '../contract.js';
import { caseSubject } from '../contract.js';
import { viewOf } from './observation.js';
import type { RunState } from './state.js';
import { subjectId } from './subject.js';

export type ProvenanceVerdict = { ok: true } | { ok: false; message: string };

export function checkProvenance(state: RunState, contract: ToolContract, args: unknown, now: number): ProvenanceVerdict {
  const narrative = new Set(contract.narrativeArgs ?? []);
  const values = leaves(args, narrative);
  if (values.length === 0) return { ok: true };
  const trusted = trustedValues(state, now);
  const signedNotes = state.transcript.flatMap((t) => (t.kind === 'note' && t.trusted ? [t.text] : []));
  for (const value of values) {
    const text = String(value);
    if (trusted.has(text) || signedNotes.some((n) => n.includes(text))) continue;
    const untrusted = untrustedTexts(state).some((t) => t.includes(text));
    return {
      ok: false,
      message: untrusted
        ? `${contract.name}: the value ${JSON.stringify(text).slice(0, 80)} appears only in untrusted text; an effect's arguments must come from the case, an authoritative fact or a signed operator note`
        : `${contract.name}: the value ${JSON.stringify(text).slice(0, 80)} traces to no trusted source (the case, a fresh authoritative fact or a signed operator note)`,
    };
  }
  return { ok: true };
}

/** String and number leaves of the arguments, outside the narrative fields. */
function leaves(args: unknown, narrative: Set<string>): (string | number)[] {
  const out: (string | number)[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string' || typeof v === 'number') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  if (args && typeof args === 'object' && !Array.isArray(args)) {
    for (const [key, value] of Object.entries(args)) if (!narrative.has(key)) walk(value);
  } else {
    walk(args);
  }
  return out;
}

function trustedValues(state: RunState, now: number): Set<string> {
  const out = new Set<string>([state.caseId]);
  for (const e of state.evidence) {
    const view = viewOf(e, now);
    if (view.status !== 'ok' || !view.fresh || view.authority !== 'authoritative') continue;
    const subject = e.subject ?? caseSubject(state.caseId);
    out.add(subject);
    out.add(subjectId(subject));
    for (const value of Object.values(e.facts)) if (typeof value === 'string' || typeof value === 'number') out.add(String(value));
  }
  return out;
}

function untrustedTexts(state: RunState): string[] {
  const notes = state.transcript.flatMap((t) => (t.kind === 'note' && !t.trusted ? [t.text] : []));
  return [...state.evidence.flatMap((e) => e.quoted), ...notes];
}
