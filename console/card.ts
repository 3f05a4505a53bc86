// The parts of an approval card that say whether to trust the request, kept beside the pages
// that lay the card out (inbox-page.ts, run-page.ts): who started the run and who proposed the
// call, the facts the domain marks as arguing against it (shown apart, above the fold, never
// folded away), what each evidence id on the card is, and the signed decision's lifetime in
// plain words. Every value is escaped by hono's html``, as on every page (layout.ts); the words
// come from client/card-words.ts, so `agent status` says the same.
import { html } from 'hono/html';
import { evidenceOnCard, evidenceWords, plainDuration, proposerWords, splitDisplay, starterWords } from '../client/card-words.js';
import { DEFAULT_VALID_FOR_MS } from '../client/sign.js';
import type { RunView } from '../client/run-view.js';
import type { Awaiting } from './call-blocks.js';
import { rowsOf, type Html } from './layout.js';

/** `started by` and `proposed by`, as rows of the card's decision list. */
export function provenanceRows(view: RunView, a: Awaiting): Html {
  return html`<dt>started by</dt>
    <dd class="starter${view.start.by ? '' : ' warn'}">${starterWords(view.start)}</dd>
    <dt>proposed by</dt>
    <dd class="proposer">${proposerWords(view, a.proposedBy)}</dd>`;
}

/** The signed display lines the domain marks as arguing against the call; nothing when there are none. */
export function againstBlock(a: Pick<Awaiting, 'display'>): Html {
  const { against } = splitDisplay(a.display);
  if (!against.length) return html``;
  return html`<section class="against" aria-label="facts against this call">
    <h3>Against this call</h3>
    <table>
      ${rowsOf(against)}
    </table>
  </section>`;
}

/** What each evidence id on the card is: the tool, when it was observed, fresh or stale. */
export function evidenceLegend(view: RunView, a: Awaiting, now: number): Html {
  const shown = evidenceOnCard(view, a);
  if (!shown.length) return html``;
  return html`<dl class="ev-legend small" aria-label="the evidence ids on this card">
    ${shown.map(
      (s) =>
        html`<dt><code>${s.id}</code></dt>
          <dd>${s.evidence ? evidenceWords(s.evidence, now) : "no longer in the run's state (retention dropped it; it remains in the run's history)"}</dd>`,
    )}
  </dl>`;
}

/** The lifetimes an approver may give a decision; the default is the CLI's. */
const LIFETIMES = [5 * 60_000, DEFAULT_VALID_FOR_MS, 30 * 60_000, 3_600_000];

/** The lifetime chooser, worded as what it means. The field keeps its name: static/console.js reads `validFor`. */
export function lifetimeField(): Html {
  return html`<label class="lifetime"
      >Your approval is valid for
      <select name="validFor">
        ${LIFETIMES.map((ms) =>
          ms === DEFAULT_VALID_FOR_MS
            ? html`<option value="${ms}" selected>${plainDuration(ms)}</option>`
            : html`<option value="${ms}">${plainDuration(ms)}</option>`,
        )}
      </select>
      after you sign</label
    >
    <p class="muted small lifetime-words">Reaching the run later, it is refused.</p>`;
}
