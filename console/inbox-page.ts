// The approval inbox: every request a person is waited for, as a card with the call and the
// controls side by side and the evidence folded below, and the panel that loads the approver's
// key (it stays in the browser). The list is a fragment that live updates reconcile item by item.
import { html } from 'hono/html';
import { isoTime, timeLeft } from '../client/format.js';
import type { ListRow } from '../client/list-query.js';
import type { RunView } from '../client/run-view.js';
import { callBlock, displayBlock, evidenceBlock, nonAsciiWarning, precondition, type Awaiting } from './call-blocks.js';
import { againstBlock, evidenceLegend, lifetimeField, provenanceRows } from './card.js';
import { layout, type Html } from './layout.js';
import { shownCode, shownValue } from './visible-text.js';

/** One run the inbox asked about: its list row, and its state or why it could not be read. */
export interface InboxEntry {
  row: ListRow;
  view?: RunView;
  error?: string;
  /** What the server says instead of the run (no worker polls its queue, a queue this engine does not serve): the run was not asked. */
  notice?: string;
  /** The read the tool's contract repeats before the call runs, when the console knows the domain. */
  reread?: string;
}

/** What the inbox shows, and whether more runs wait than it shows (`limit` of them are). */
export interface Inbox {
  entries: InboxEntry[];
  more: boolean;
  limit: number;
}

/** Identifies what an inbox item shows: the page keeps an item (and what was typed in it) while this stays the same. */
export function inboxKey(runId: string, a: Awaiting): string {
  return [runId, a.requestId, a.digest, a.approvedBy.join(','), a.eligible.length > 0 ? 'ready' : 'loading'].join('|');
}

function request(entry: InboxEntry & { view: RunView & { awaiting: Awaiting } }, now: number): Html {
  const { view } = entry;
  const a = view.awaiting;
  const runId = view.runId;
  const rests = a.evidenceIds.map((id) => ({ id, evidence: view.evidence.items.find((e) => e.id === id) }));
  // What the browser hashes to compute the digest it signs (the chain, for runs whose digest
  // covers it, and the lines shown beside the call): the same values the card shows.
  const call = JSON.stringify({
    tool: a.tool,
    args: a.args,
    subject: a.subject ?? null,
    ...(view.chain ? { chain: view.chain } : {}),
    ...(a.display ? { display: a.display } : {}),
  });
  // The call and the controls first, side by side, so an approver at 1280x800 sees what they
  // sign and the buttons together; the evidence follows, folded.
  return html`<article
    class="request"
    id="req-${a.requestId}"
    data-key="${inboxKey(runId, a)}"
    data-run-id="${runId}"
    data-request-id="${a.requestId}"
    data-digest="${a.digest}"
    data-call="${call}"
    data-signed="${a.signed ? 'yes' : 'no'}"
  >
    <h2>
      <span class="tool">${a.tool}</span> on ${a.subject ? shownCode(a.subject) : html`<code>(no subject)</code>`} <span class="muted">in run</span>
      <a href="/runs/${encodeURIComponent(runId)}">${runId}</a>
    </h2>
    <p class="muted goal">${view.domain} case ${shownValue(view.caseId)}: ${shownValue(view.goal)}</p>
    <div class="card-main">
      <div class="card-call">
        ${nonAsciiWarning(a)} ${againstBlock(a)} ${displayBlock(a, entry.reread)} ${evidenceLegend(view, a, now)} ${callBlock(a)}
        <dl>
          <dt>subject</dt>
          <dd>${a.subject ? shownCode(a.subject) : html`<code>—</code>`}</dd>
          <dt>precondition</dt>
          <dd class="precondition">${precondition(a.precondition)}</dd>
          <dt>digest</dt>
          <dd><code class="digest">${a.digest}</code> <span class="digest-check muted">(checked in your browser before signing)</span></dd>
          <dt>request</dt>
          <dd><code>${a.requestId}</code></dd>
        </dl>
      </div>
      <div class="card-decide">
        <dl>
          ${provenanceRows(view, a)}
          <dt>needs</dt>
          <dd>
            ${a.quorum} approval${a.quorum === 1 ? '' : 's'} from ${a.roles.join(' or ')}; so far ${a.approvedBy.length ? a.approvedBy.join(', ') : 'none'}
          </dd>
          <dt>may decide</dt>
          <dd>
            ${a.eligible.length ? a.eligible.join(', ') : html`<span class="warn">the worker's approver directory is still loading for this request</span>`}
          </dd>
          <dt>request expires</dt>
          <dd>${isoTime(a.expiresAt)} (in ${timeLeft(a.expiresAt - now)})</dd>
        </dl>
        ${
          a.signed
            ? html`<form class="decide" autocomplete="off">
                <label>Comment <input name="comment" maxlength="500" placeholder="why (recorded with the decision)" /></label>
                ${lifetimeField()}
                <div class="buttons">
                  <button type="button" data-decision="approve" class="approve">Approve</button>
                  <button type="button" data-decision="deny" class="deny">Deny</button>
                </div>
                <p class="outcome" role="status"></p>
              </form>`
            : html`<p class="problem">This run predates signed approvals: it cannot be decided with a key (cancel it instead).</p>`
        }
      </div>
    </div>
    <details class="rests">
      <summary>The evidence it rests on (${rests.length})</summary>
      ${rests.length ? rests.map((r) => (r.evidence ? evidenceBlock(r.evidence, now) : html`<p class="muted">evidence <code>${r.id}</code> is no longer in the run's state</p>`)) : html`<p class="muted">none cited</p>`}
    </details>
  </article>`;
}

/**
 * Said above the cards when more runs wait than the inbox shows, with how to see them: without
 * it the requests past the limit would be missing from the page as if nobody waited on them.
 */
function moreWaiting(limit: number): Html {
  const words = `More runs wait for approval than the ${limit} shown here: the others are not on this page until some of these are decided. \`agent list --awaiting-approval --limit 1000\` lists them all.`;
  return html`<p class="problem more-waiting" role="alert" data-key="more|${limit}">${words}</p>`;
}

/** The part of the inbox that live updates reconcile, item by item. */
export function inboxFragment(inbox: Inbox, now: number): Html {
  const { entries } = inbox;
  const waiting = entries.filter((e): e is InboxEntry & { view: RunView & { awaiting: Awaiting } } => !!e.view?.awaiting);
  const failed = entries.filter((e) => e.error);
  const unserved = entries.filter((e) => e.notice);
  // "Nobody is waited for" only when it is true: a run the server lists as waiting but nobody can read is said, not hidden.
  const empty = failed.length || unserved.length ? 'No request here can be decided right now; these runs wait for approval:' : 'Nobody is being waited for.';
  return html`${inbox.more ? moreWaiting(inbox.limit) : ''}
  ${waiting.length ? waiting.map((e) => request(e, now)) : html`<p class="empty muted" data-key="empty|${empty}">${empty}</p>`}
  ${unserved.map((e) => html`<p class="notice" data-key="notice|${e.row.runId}|${e.notice ?? ''}" data-run-id="${e.row.runId}"><a href="/runs/${encodeURIComponent(e.row.runId)}">${e.row.runId}</a> ${e.notice ?? ''}</p>`)}
  ${failed.map((e) => html`<p class="problem" data-key="problem|${e.row.runId}|${e.error ?? ''}" data-run-id="${e.row.runId}">${e.row.runId}: ${e.error ?? ''}</p>`)}`;
}

export function inboxPage(inbox: Inbox, now: number): Html {
  // The requests take the main column, the key and the decision log a narrow one beside it:
  // the first request's call and buttons are on screen without scrolling.
  const body = html`<div class="inbox-layout">
    <div class="inbox-main">
      <h1>Approval inbox</h1>
      <p id="live-status" class="muted" role="status">Live: requests appear and leave as runs move.</p>
      <div id="inbox-live" data-live="/inbox/live">${inboxFragment(inbox, now)}</div>
    </div>
    <aside class="inbox-side">
      <section id="key-panel">
        <h2>Your key</h2>
        <p class="muted small">
          Decisions are signed in this browser with your Ed25519 key (WebCrypto). The key file is read here and never sent to the console; reloading the page
          forgets it.
        </p>
        <label>Key file <input type="file" id="key-file" accept=".key,.json,application/json,text/plain" /></label>
        <label class="paste"
          >or paste it
          <textarea id="key-text" rows="2" autocomplete="off" spellcheck="false" placeholder='{"id":"alice@ops","secretKey":"…","publicKey":"…"}'></textarea>
        </label>
        <button type="button" id="key-load">Use the pasted key</button>
        <button type="button" id="key-forget">Forget the key</button>
        <p id="key-status" role="status">No key loaded: load yours to approve or deny.</p>
      </section>
      <section id="decision-log-panel">
        <h2>Your decisions</h2>
        <ol id="decision-log"></ol>
      </section>
    </aside>
  </div>`;
  return layout('Approval inbox', 'inbox', body);
}
