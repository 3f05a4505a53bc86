// A finished run's headline: what it did and how it ended, in one line an operator reads first
// (`reissued PX-1042 as rsi_…; ledger FAILED, reissue paid · resolved (probe_confirmed)`). The
// domain may say what it did in its own words (Domain.summarize, from facts only); otherwise the
// engine says it from the effects ledger. Pure and domain-free, so the workflow (its query and
// the Web UI's current details) and the client (a run whose worker predates the headline) agree.
import type { Domain, SummaryView } from '../contract.js';
import type { RunState } from './state.js';
import { effectsDone, subjectId, viewOf } from './subject.js';

/** Long enough for an effect, its result id and the ledger's word; a headline is not a report. */
const MAX_SUMMARY_CHARS = 200;

/** Undefined while the run is still going. */
export function headline(state: RunState, domain?: Domain): string | undefined {
  const t = state.terminal;
  if (!t) return undefined;
  return `${domainSummary(state, domain) ?? ledgerSummary(state)} · ${t.class} (${t.reason})`;
}

function domainSummary(state: RunState, domain: Domain | undefined): string | undefined {
  const t = state.terminal;
  if (!domain?.summarize || !t) return undefined;
  const view: SummaryView = {
    caseId: state.caseId,
    evidence: state.evidence.map((e) => viewOf(e, t.at)),
    done: effectsDone(state),
    terminal: { class: t.class, reason: t.reason },
  };
  try {
    const said = domain.summarize(view);
    if (typeof said !== 'string') return undefined;
    // eslint-disable-next-line no-control-regex
    const line = said.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\s]+/g, ' ').trim();
    return line ? (line.length > MAX_SUMMARY_CHARS ? `${line.slice(0, MAX_SUMMARY_CHARS - 1)}…` : line) : undefined;
  } catch {
    return undefined;
  }
}

/** The engine's own words: each effect, what it was about, how it ended and the ids it returned. */
export function ledgerSummary(state: RunState): string {
  if (!state.effects.length) return 'no effect applied';
  return state.effects
    .map((e) => {
      const about = e.subject ? ` ${subjectId(e.subject)}` : '';
      const facts = e.status === 'applied' ? state.evidence.find((ev) => ev.id === e.evidenceId)?.facts : undefined;
      const ids = facts
        ? Object.entries(facts)
            .filter(([, v]) => typeof v === 'string')
            .slice(0, 2)
            .map(([k, v]) => `${k} ${String(v)}`)
        : [];
      return `${e.tool}${about} ${e.status.replace('_', ' ')}${ids.length ? ` (${ids.join(', ')})` : ''}`;
    })
    .join('; ');
}
