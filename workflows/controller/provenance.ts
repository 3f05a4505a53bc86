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
  const trusted = trustedValues(state, now);
  const signedNotes = state.transcript.flatMap((t) => (t.kind === 'note' && t.trusted ? [t.text] : []));
  const carried = carriedOut(state, args, narrative, trusted, signedNotes);
  if (carried) return { ok: false, message: `${contract.name}: ${carried}` };
  if (values.length === 0) return { ok: true };
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

/**
 * What a narrative argument (a message body, a reason) may not carry out: a link, an address or
 * an account-like number that no trusted source vouches for. The model's own words are its own,
 * and a value a trusted source holds may be quoted; but a link read on a web page (or one the
 * model made up, or read where the engine kept only part of the text) pasted into a message to a
 * colleague is data leaving on someone else's instruction.
 */
const CARRIED = /(?:https?:\/\/|www\.)[^\s"'<>)\]]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b[A-Z]{2}\d{2}[A-Z0-9]{10,30}\b|\b\d{8,}\b/gi;

function carriedOut(state: RunState, args: unknown, narrative: Set<string>, trusted: Set<string>, signedNotes: string[]): string | undefined {
  if (narrative.size === 0 || !args || typeof args !== 'object' || Array.isArray(args)) return undefined;
  // A fact vouches for a value it is, not for text it happens to contain (a channel whose name
  // someone wrote to carry a link); a person's signed words and the run's goal vouch for what they say.
  const trustedValues = new Set([...trusted].map((t) => t.toLowerCase()));
  const trustedTexts = [...signedNotes, state.goal].map((t) => t.toLowerCase());
  // ...so a link inside a longer fact is carried text, as if quoted.
  const untrusted = [...untrustedTexts(state), ...trusted];
  for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
    if (!narrative.has(key) || typeof value !== 'string') continue;
    for (const match of value.match(CARRIED) ?? []) {
      const token = match.replace(/[.,;:!?]+$/, '');
      const lower = token.toLowerCase();
      if (trustedValues.has(lower) || trustedTexts.some((t) => t.includes(lower))) continue;
      const where = untrusted.some((t) => t.toLowerCase().includes(lower)) ? 'which only untrusted text supplied' : 'which no trusted source holds';
      return `the ${key} carries ${JSON.stringify(token).slice(0, 80)}, ${where}; a link, address or account number may leave only from a trusted source`;
    }
  }
  return undefined;
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
