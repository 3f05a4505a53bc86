// The console's pages, rendered on the server. Everything shown here may have been written by
// an adversary (a tool's output, a log line, a model's proposal, a note), so every value goes
// through hono's html`` template, which escapes each interpolation; nothing here calls raw().
// The pages carry no inline script or style (the Content-Security-Policy forbids both); the one
// script, static/console.js, signs decisions in the browser and swaps in live fragments.
import { html } from 'hono/html';
import { budgetLine, duration, isoTime, timeLeft } from '../client/format.js';
import type { ListFilter, ListRow } from '../client/list-query.js';
import { modelWords, splitDisplay, starterWords } from '../client/card-words.js';
import { buildCell } from '../client/run-build.js';
import type { RunView } from '../client/run-view.js';
import { TerminalClass } from '../workflows/controller/index.js';
import { VisiblePhase } from '../workflows/search-attributes.js';
import { againstBlock, evidenceLegend, lifetimeField, provenanceRows } from './card.js';

export type Html = ReturnType<typeof html>;

type Awaiting = NonNullable<RunView['awaiting']>;
type Evidence = RunView['evidence']['items'][number];

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

const pretty = (value: unknown): string => {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
};

const when = isoTime;

/** The whole page around a body; `page` tells the script which behaviour to switch on. */
export function layout(title: string, page: string, body: Html): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · agent console</title>
        <link rel="stylesheet" href="/static/console.css" />
        <script src="/static/console.js" defer></script>
      </head>
      <body data-page="${page}">
        <header class="top">
          <strong class="brand">agent console</strong>
          <nav><a href="/">Runs</a> <a href="/inbox">Approval inbox</a></nav>
        </header>
        <main>${body}</main>
      </body>
    </html>`;
}

export function errorPage(title: string, message: string): Html {
  return layout(
    title,
    'error',
    html`<h1>${title}</h1>
      <p class="problem" role="alert">${message}</p>
      <p><a href="/">Back to the runs</a></p>`,
  );
}

// --- runs list ------------------------------------------------------------------------------------

function option(value: string, selected: string | undefined, label = value): Html {
  return value === selected ? html`<option value="${value}" selected>${label}</option>` : html`<option value="${value}">${label}</option>`;
}

function terminalBadge(terminal: string | null, reason: string | null): Html {
  if (!terminal) return html`<span class="muted">—</span>`;
  return html`<span class="badge t-${terminal}">${terminal}</span> <code class="reason">${reason ?? ''}</code>`;
}

function phaseBadge(phase: string | null, status: string): Html {
  const p = phase ?? 'unknown';
  const closedWithoutRecord = status !== 'RUNNING' && p !== 'terminal';
  return html`<span class="badge p-${p}">${p}</span>${closedWithoutRecord ? html` <span class="badge warn">${status.toLowerCase()}</span>` : ''}`;
}

/** One of the engine's task queues and whether a worker polls it (AgentClient.queueStatus). */
export interface QueueLine {
  taskQueue: string;
  pollers: { checked: boolean; recent: number };
}

/** The engine's queues side by side: a team's domains, each on the queue its workers poll. */
function queueLines(queues: readonly QueueLine[]): Html {
  if (!queues.length) return html``;
  const polling = (q: QueueLine) => (!q.pollers.checked ? 'not known' : q.pollers.recent ? `${q.pollers.recent} polling` : 'no worker polling');
  return html`<p class="queues">This engine's task queues: ${queues.map((q, i) => html`${i ? ', ' : ''}<code>${q.taskQueue}</code> (${polling(q)})`)}</p>`;
}

export function runsPage(
  rows: ListRow[],
  filter: ListFilter,
  domains: readonly string[],
  problem?: string,
  notices?: ReadonlyMap<ListRow, string>,
  queues: readonly QueueLine[] = [],
): Html {
  // A build column only when some run is under Worker Versioning (client/run-build.ts).
  const builds = rows.some((r) => r.build);
  const body = html`<h1>Runs</h1>
    ${queueLines(queues)}
    <form class="filters" method="get" action="/">
      <label
        >Domain
        <input name="domain" list="domains" value="${filter.domain ?? ''}" placeholder="any" autocomplete="off" />
        <datalist id="domains">${domains.map((d) => html`<option value="${d}"></option>`)}</datalist>
      </label>
      <label
        >Phase
        <select name="phase">
          ${option('', filter.phase, 'any')}${VisiblePhase.options.map((p) => option(p, filter.phase))}
        </select>
      </label>
      <label
        >Terminal
        <select name="terminal">
          ${option('', filter.terminal, 'any')}${TerminalClass.options.map((t) => option(t, filter.terminal))}
        </select>
      </label>
      <button type="submit">Filter</button>
      <a href="/">clear</a>
    </form>
    ${problem ? html`<p class="problem" role="alert">${problem}</p>` : ''}
    <p class="muted">${rows.length} run${rows.length === 1 ? '' : 's'} from the server's visibility store (it may lag a run's newest phase by a moment).</p>
    <table class="runs">
      <thead>
        <tr>
          <th>Run</th>
          <th>Domain</th>
          <th>Case</th>
          <th>Phase</th>
          <th>Terminal</th>
          <th>Started</th>
          ${builds ? html`<th>Build</th>` : ''}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (r) =>
            html`<tr data-run-id="${r.runId}">
              <td><a href="/runs/${encodeURIComponent(r.runId)}">${r.runId}</a></td>
              <td>${r.domain ?? ''}</td>
              <td>${r.caseId ?? ''}</td>
              <td>
                ${phaseBadge(r.phase, r.status)}${r.phase === 'awaiting_approval' && r.status === 'RUNNING' && r.served !== false ? html` <a href="/inbox">decide</a>` : ''}${notices?.get(r) ? html` <span class="notice">${notices.get(r)}</span>` : ''}${r.served === false ? html` <span class="foreign">not served by this engine's queue (task queue ${r.taskQueue}): not one of its runs</span>` : ''}
              </td>
              <td>${terminalBadge(r.terminal, r.stopReason)}</td>
              <td>${isoTime(Date.parse(r.startTime))}</td>
              ${builds ? html`<td class="build">${buildCell(r.build)}</td>` : ''}
            </tr>`,
        )}
      </tbody>
    </table>`;
  return layout('Runs', 'runs', body);
}

// --- evidence, shared by the run page and the inbox ---------------------------------------------

function facts(f: Evidence['facts']): Html {
  const entries = Object.entries(f);
  if (!entries.length) return html`<span class="muted">no facts</span>`;
  return html`<table class="facts">
    ${entries.map(
      ([k, v]) =>
        html`<tr>
          <th>${k}</th>
          <td><code>${JSON.stringify(v)}</code></td>
        </tr>`,
    )}
  </table>`;
}

export function evidenceBlock(e: Evidence, now: number): Html {
  const age = now - e.observedAt;
  const freshNow = e.fresh && age <= e.maxAgeMs;
  return html`<div class="evidence" id="ev-${e.id}">
    <div class="ev-head">
      <code>${e.id}</code> <strong>${e.tool}</strong>
      <span class="badge s-${e.status}">${e.status}</span>
      <span class="badge a-${e.authority}">${e.authority}</span>
      <span class="badge ${freshNow ? 'fresh' : 'stale'}">${freshNow ? 'fresh' : e.fresh ? 'stale now' : 'stale when observed'}</span>
    </div>
    <dl class="ev-meta">
      <dt>source</dt>
      <dd>${e.source}</dd>
      ${
        e.subject
          ? html`<dt>subject</dt>
              <dd><code>${e.subject}</code></dd>`
          : ''
      }
      <dt>observed</dt>
      <dd>${when(e.observedAt)} (${duration(age)} ago; effective ${when(e.effectiveAt)}; fresh for ${duration(e.maxAgeMs)})</dd>
      ${
        e.args !== undefined
          ? html`<dt>asked</dt>
              <dd><code>${JSON.stringify(e.args)}</code></dd>`
          : ''
      }
    </dl>
    ${facts(e.facts)} ${e.error ? html`<p class="problem">${e.error.class}: ${e.error.message}</p>` : ''}
    ${e.truncated ? html`<p class="muted">output truncated from ${e.truncated.originalBytes} bytes (kept as ${e.truncated.ref})</p>` : ''}
    ${
      e.quoted.length
        ? html`<div class="untrusted">
            <p class="untrusted-label">
              UNTRUSTED TEXT from the tool's output: quoted data, not instructions${e.textWithheld ? ' (withheld from control state)' : ''}
            </p>
            ${e.quoted.map((q) => html`<pre class="quoted">${q}</pre>`)}
          </div>`
        : e.textWithheld
          ? html`<p class="muted">free text withheld from control state</p>`
          : ''
    }
  </div>`;
}

// --- a run --------------------------------------------------------------------------------------

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
      <span class="badge t-${t.class}">${t.class}</span> <code class="reason">${t.reason}</code> ${t.detail} <span class="muted">at ${when(t.at)}</span>
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

export function callBlock(a: Pick<Awaiting, 'tool' | 'args' | 'subject'>): Html {
  return html`<pre class="call"><strong>${a.tool}</strong> ${pretty(a.args)}</pre>`;
}

/**
 * What the domain shows beside the call (amount, beneficiary, ledger state), signed with it. What
 * is read again before the call runs is said only when the tool's contract says it (`reread`,
 * its precondition's re-read); without the contract nothing domain-specific is claimed. The
 * lines marked as arguing against the call are shown apart (card.ts againstBlock), not here.
 */
export function displayBlock(a: Pick<Awaiting, 'display'>, reread?: string): Html {
  const entries = splitDisplay(a.display).lines;
  if (!entries.length) return html``;
  return html`<table class="display" aria-label="what this call does">
      ${entries.map(
        ([k, v]) =>
          html`<tr>
            <th>${k}</th>
            <td>${v}</td>
          </tr>`,
      )}
    </table>
    <p class="muted small">
      From the run's evidence when the request was raised. You sign the call and these lines together (the digest covers
      both).${reread ? html` Before the call runs, the run reads <code>${reread}</code> again and checks the tool's precondition on that answer.` : ''}
    </p>`;
}

function precondition(p: Awaiting['precondition']): Html {
  if (!p) return html`<span class="muted">not stated</span>`;
  return p.ok ? html`<span class="badge ok">holds</span>` : html`<span class="badge bad">VIOLATED</span> ${p.reason ?? 'no reason given'}`;
}

function pendingOnRunPage(view: RunView, a: Awaiting, now: number): Html {
  return html`<section class="pending">
    <h2>Waiting for a person</h2>
    ${againstBlock(a)} ${displayBlock(a)} ${evidenceLegend(view, a, now)} ${callBlock(a)}
    <dl>
      ${provenanceRows(view, a)}
      <dt>subject</dt>
      <dd><code>${a.subject ?? '—'}</code></dd>
      <dt>precondition</dt>
      <dd>${precondition(a.precondition)}</dd>
      <dt>request</dt>
      <dd><code>${a.requestId}</code></dd>
      <dt>digest</dt>
      <dd><code class="digest">${a.digest}</code></dd>
      <dt>needs</dt>
      <dd>${a.quorum} approval${a.quorum === 1 ? '' : 's'} from ${a.roles.join(' or ')}; so far ${a.approvedBy.length ? a.approvedBy.join(', ') : 'none'}</dd>
      <dt>expires</dt>
      <dd>${when(a.expiresAt)}</dd>
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
              <td>${when(a.at)}</td>
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
        <dd>${when(view.startedAt)}</dd>
        <dt>started by</dt>
        <dd>${starterWords(view.start)}</dd>
        <dt>steps from</dt>
        <dd>${modelWords(view.model)}${view.shape ? ` (${view.shape} shape)` : ''}</dd>
      </dl>
      <p class="muted asof">as of ${when(now)}</p>
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

// --- the approval inbox -------------------------------------------------------------------------

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
      <span class="tool">${a.tool}</span> on <code>${a.subject ?? '(no subject)'}</code> <span class="muted">in run</span>
      <a href="/runs/${encodeURIComponent(runId)}">${runId}</a>
    </h2>
    <p class="muted goal">${view.domain} case ${view.caseId}: ${view.goal}</p>
    <div class="card-main">
      <div class="card-call">
        ${againstBlock(a)} ${displayBlock(a, entry.reread)} ${evidenceLegend(view, a, now)} ${callBlock(a)}
        <dl>
          <dt>subject</dt>
          <dd><code>${a.subject ?? '—'}</code></dd>
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
          <dd>${when(a.expiresAt)} (in ${timeLeft(a.expiresAt - now)})</dd>
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

/** The part of the inbox that live updates reconcile, item by item. */
export function inboxFragment(entries: InboxEntry[], now: number): Html {
  const waiting = entries.filter((e): e is InboxEntry & { view: RunView & { awaiting: Awaiting } } => !!e.view?.awaiting);
  const failed = entries.filter((e) => e.error);
  const unserved = entries.filter((e) => e.notice);
  // "Nobody is waited for" only when it is true: a run the server lists as waiting but nobody can read is said, not hidden.
  const empty = failed.length || unserved.length ? 'No request here can be decided right now; these runs wait for approval:' : 'Nobody is being waited for.';
  return html`${waiting.length ? waiting.map((e) => request(e, now)) : html`<p class="empty muted" data-key="empty|${empty}">${empty}</p>`}
  ${unserved.map((e) => html`<p class="notice" data-key="notice|${e.row.runId}|${e.notice ?? ''}" data-run-id="${e.row.runId}"><a href="/runs/${encodeURIComponent(e.row.runId)}">${e.row.runId}</a> ${e.notice ?? ''}</p>`)}
  ${failed.map((e) => html`<p class="problem" data-key="problem|${e.row.runId}|${e.error ?? ''}" data-run-id="${e.row.runId}">${e.row.runId}: ${e.error ?? ''}</p>`)}`;
}

export function inboxPage(entries: InboxEntry[], now: number): Html {
  // The requests take the main column, the key and the decision log a narrow one beside it:
  // the first request's call and buttons are on screen without scrolling.
  const body = html`<div class="inbox-layout">
    <div class="inbox-main">
      <h1>Approval inbox</h1>
      <p id="live-status" class="muted" role="status">Live: requests appear and leave as runs move.</p>
      <div id="inbox-live" data-live="/inbox/live">${inboxFragment(entries, now)}</div>
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
