// One run's page: where it stands, what it waits for, its budgets, every turn (proposals and the
// gate's receipts, calls, evidence, notes, approvals), the effects ledger and the approvals
// record. The summary and all below it is a fragment that live updates replace.
import { html } from 'hono/html';
import { budgetLine, duration, isoTime, timeLeft } from '../client/format.js';
import { modelWords, starterWords } from '../client/card-words.js';
import type { RunView } from '../client/run-view.js';
import { callBlock, displayBlock, evidenceBlock, nonAsciiWarning, precondition, type Awaiting } from './call-blocks.js';
import { againstBlock, evidenceLegend, provenanceRows } from './card.js';
import { layout, type Html } from './layout.js';
import { shownCode } from './visible-text.js';

function terminalLine(view: RunView): Html {
  if (!view.terminal) return html`<p class="status"><span class="badge p-${view.phase}">${view.phase}</span> turn ${view.budgets.used.turns}</p>`;
  const t = view.terminal;
  const said = view.headline;
  // A run that ended after a person said no says who, and why, right under its headline.
  const last = view.approvals.at(-1);
  const denied = last?.decision === 'denied' ? last : undefined;
  return html`${said ? html`<p class="headline h-${t.class}">${said}</p>` : ''}
    ${denied ? html`<p class="denied">request <code>${denied.requestId}</code> denied by ${denied.by}${denied.comment ? html`: ${denied.comment}` : ''}</p>` : ''}
    <p class="status">
      <span class="badge t-${t.class}">${t.class}</span> <code class="reason">${t.reason}</code> ${t.detail} <span class="muted">at ${isoTime(t.at)}</span>
    </p>`;
}

function budgets(view: RunView): Html {
  const left = view.budgets.left;
  const b = view.budgets.limits;
  const row = (name: string, l: number, total: number) =>
    html`<tr>
      <th>${name}</th>
      <td>${l}</td>
      <td class="muted">of ${total}</td>
    </tr>`;
  return html`<section class="budgets">
    <h2>Budgets left</h2>
    <table>
      ${row('turns', left.turns, b.turns)} ${row('tool calls', left.toolCalls, b.toolCalls)} ${row('effects', left.effects, b.effects)}
      ${row('duplicates', left.duplicates, b.duplicates)} ${row('tokens', left.tokens, b.tokens)}
      <tr>
        <th>time</th>
        <td>${timeLeft(left.msLeft)}</td>
        <td class="muted">of ${duration(b.deadlineMs)}${view.phase === 'awaiting_approval' ? ' (the clock is stopped while a person decides)' : ''}</td>
      </tr>
    </table>
  </section>`;
}

function pendingOnRunPage(view: RunView, a: Awaiting, now: number): Html {
  return html`<section class="pending">
    <h2>Waiting for a person</h2>
    ${nonAsciiWarning(a)} ${againstBlock(a)} ${displayBlock(a)} ${evidenceLegend(view, a, now)} ${callBlock(a)}
    <dl>
      ${provenanceRows(view, a)}
      <dt>subject</dt>
      <dd>${a.subject ? shownCode(a.subject) : html`<code>—</code>`}</dd>
      <dt>precondition</dt>
      <dd>${precondition(a.precondition)}</dd>
      <dt>request</dt>
      <dd><code>${a.requestId}</code></dd>
      <dt>digest</dt>
      <dd><code class="digest">${a.digest}</code></dd>
      <dt>needs</dt>
      <dd>${a.quorum} approval${a.quorum === 1 ? '' : 's'} from ${a.roles.join(' or ')}; so far ${a.approvedBy.length ? a.approvedBy.join(', ') : 'none'}</dd>
      <dt>expires</dt>
      <dd>${isoTime(a.expiresAt)}</dd>
    </dl>
    <p><a href="/inbox#req-${a.requestId}">Decide in the approval inbox</a></p>
  </section>`;
}

function turns(view: RunView, now: number): Html {
  const numbers = new Set<number>();
  for (const d of view.decisions) numbers.add(d.turn);
  for (const e of view.executions) numbers.add(e.turn);
  for (const t of view.messages) numbers.add(t.turn);
  for (const e of view.evidence.items) if (e.turn !== undefined) numbers.add(e.turn);
  const unplaced = view.evidence.items.filter((e) => e.turn === undefined);
  const dropped = view.dropped;
  const sorted = [...numbers].sort((a, b) => a - b);
  return html`<section class="turns">
    <h2>Turns</h2>
    ${
      dropped.decisions || dropped.executions || dropped.evidence
        ? html`<p class="muted">
            Retention dropped ${dropped.decisions} decision receipts, ${dropped.executions} execution receipts and ${dropped.evidence} evidence records from
            state; they remain in the run's Temporal history.
          </p>`
        : ''
    }
    ${sorted.map((n) => {
      const decisions = view.decisions.filter((d) => d.turn === n);
      const executions = view.executions.filter((e) => e.turn === n);
      const evidence = view.evidence.items.filter((e) => e.turn === n);
      const entries = view.messages.filter((t) => t.turn === n);
      const approvals = view.approvals.filter((a) => a.turn === n);
      return html`<article class="turn" id="turn-${n}">
        <h3>Turn ${n}</h3>
        ${decisions.map(
          (d) =>
            html`<div class="decision ${d.accepted ? 'accepted' : 'rejected'}">
              <p><span class="label">${d.by ? `by ${d.by}` : 'proposal'}</span> <code>${d.proposal}</code></p>
              ${d.by === 'model' && d.open?.length ? html`<p><span class="label">asked because</span> ${d.open.join('; ')}</p>` : ''}
              <p>
                <span class="label">gate</span> <span class="badge ${d.accepted ? 'ok' : 'bad'}">${d.accepted ? 'accepted' : 'rejected'}</span>
                <code class="reason">${d.reason}</code>
                ${d.evidenceIds.length ? html`<span class="muted">cites</span> ${d.evidenceIds.map((id) => html`<a href="#ev-${id}"><code>${id}</code></a> `)}` : ''}
                <span class="muted">${d.tokens} tokens, context ${d.contextTokens}; left: ${budgetLine(d.budgetLeft)}</span>
              </p>
            </div>`,
        )}
        ${
          executions.length
            ? html`<table class="executions">
                <thead>
                  <tr>
                    <th>call</th>
                    <th>kind</th>
                    <th>tool</th>
                    <th>result</th>
                    <th>attempt</th>
                    <th>ms</th>
                    <th>key</th>
                  </tr>
                </thead>
                <tbody>
                  ${executions.map(
                    (e) =>
                      html`<tr>
                        <td><code>${e.callId}</code></td>
                        <td>${e.kind}</td>
                        <td>${e.tool}</td>
                        <td><span class="badge r-${e.result}">${e.result}</span>${e.accepted ? '' : ' refused'}</td>
                        <td>${e.attempt}</td>
                        <td>${e.durationMs}</td>
                        <td><code>${e.idempotencyKey ?? ''}</code></td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
            : ''
        }
        ${evidence.map((e) => evidenceBlock(e, now))}
        ${entries.map((t) =>
          t.kind === 'control'
            ? html`<p class="feedback"><span class="label">feedback</span> <code>${t.code}</code> ${t.message}</p>`
            : t.kind === 'note'
              ? t.trusted
                ? html`<p class="note"><span class="label">note</span> <span class="badge ok">signed</span> ${t.by}: ${t.text}</p>`
                : html`<div class="note untrusted">
                    <p class="untrusted-label">UNTRUSTED NOTE (unsigned) by ${t.by}</p>
                    <pre class="quoted">${t.text}</pre>
                  </div>`
              : '',
        )}
        ${approvals.map(
          (a) =>
            html`<p class="approval">
              <span class="label">approval</span> <span class="badge ${a.decision === 'approved' ? 'ok' : 'bad'}">${a.decision}</span> by
              ${a.by}${a.comment ? html`: ${a.comment}` : ''} <span class="muted">(request <code>${a.requestId}</code>)</span>
            </p>`,
        )}
      </article>`;
    })}
    ${
      unplaced.length
        ? html`<article class="turn">
            <h3>Other evidence</h3>
            ${unplaced.map((e) => evidenceBlock(e, now))}
          </article>`
        : ''
    }
  </section>`;
}

function effectsLedger(view: RunView): Html {
  return html`<section class="effects">
    <h2>Effects ledger</h2>
    ${
      view.effects.length
        ? html`<table>
            <thead>
              <tr>
                <th>key</th>
                <th>tool</th>
                <th>arguments</th>
                <th>subject</th>
                <th>status</th>
                <th>attempts</th>
                <th>readbacks</th>
                <th>settled by</th>
              </tr>
            </thead>
            <tbody>
              ${view.effects.map(
                (e) =>
                  html`<tr>
                    <td><code>${e.key}</code></td>
                    <td>${e.tool}</td>
                    <td><code>${JSON.stringify(e.args)}</code></td>
                    <td><code>${e.subject ?? ''}</code></td>
                    <td><span class="badge e-${e.status}">${e.status}</span></td>
                    <td>${e.attempts}</td>
                    <td>${e.readbacks}</td>
                    <td>${e.settledBy ?? ''}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
        : html`<p class="muted">No effects.</p>`
    }
  </section>`;
}

function approvalsRecord(view: RunView): Html {
  if (!view.approvals.length) return html``;
  return html`<section class="approvals">
    <h2>Approvals</h2>
    <table>
      <thead>
        <tr>
          <th>request</th>
          <th>decision</th>
          <th>by</th>
          <th>comment</th>
          <th>at</th>
          <th>signed statements</th>
        </tr>
      </thead>
      <tbody>
        ${view.approvals.map(
          (a) =>
            html`<tr>
              <td><code>${a.requestId}</code></td>
              <td>${a.decision}</td>
              <td>${a.by}</td>
              <td>${a.comment}</td>
              <td>${isoTime(a.at)}</td>
              <td>
                ${a.signatures.map((s) => html`<div><code>${s.by}</code> ${s.decision} <code title="${s.signature}">${s.signature.slice(0, 16)}…</code></div>`)}
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

/** The part of a run's page that live updates replace. */
export function runFragment(view: RunView, now: number): Html {
  return html`<section class="summary">
      <h1>${view.runId}</h1>
      ${terminalLine(view)}
      <dl>
        <dt>domain</dt>
        <dd>${view.domain}</dd>
        <dt>case</dt>
        <dd>${view.caseId}</dd>
        <dt>goal</dt>
        <dd>${view.goal}</dd>
        <dt>started</dt>
        <dd>${isoTime(view.startedAt)}</dd>
        <dt>started by</dt>
        <dd>${starterWords(view.start)}</dd>
        <dt>steps from</dt>
        <dd>${modelWords(view.model)}${view.shape ? ` (${view.shape} shape)` : ''}</dd>
      </dl>
      <p class="muted asof">as of ${isoTime(now)}</p>
    </section>
    ${view.awaiting ? pendingOnRunPage(view, view.awaiting, now) : ''} ${budgets(view)} ${turns(view, now)} ${effectsLedger(view)} ${approvalsRecord(view)}`;
}

export function runPage(runId: string, view: RunView, now: number): Html {
  return layout(
    runId,
    'run',
    html`<p id="live-status" class="muted" role="status">${view.terminal ? 'The run has ended.' : 'Live: updates as the run moves.'}</p>
      <div id="live" data-live="/runs/${encodeURIComponent(runId)}/live">${runFragment(view, now)}</div>`,
  );
}
