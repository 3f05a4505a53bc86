// The console's front page: the runs the server's visibility store lists, filtered by domain,
// phase and terminal class, with the engine's task queues and whether a worker polls them.
import { html } from 'hono/html';
import { isoTime } from '../client/format.js';
import type { ListFilter, ListRow } from '../client/list-query.js';
import { buildCell } from '../client/run-build.js';
import { TerminalClass } from '../workflows/controller/index.js';
import { VisiblePhase } from '../workflows/search-attributes.js';
import { layout, type Html } from './layout.js';

function option(value: string, selected: string | undefined, label = value): Html {
  return value === selected ? html`<option value="${value}" selected>${label}</option>` : html`<option value="${value}">${label}</option>`;
}

function terminalBadge(terminal: string | null, reason: string | null): Html {
  if (!terminal) return html`<span class="muted">—</span>`;
  return html`<span class="badge t-${terminal}">${terminal}</span> <code class="reason">${reason ?? ''}</code>`;
}

function phaseBadge(phase: string | null, status: string): Html {
  const p = phase ?? 'unknown';
  // The engine ends a run by completing it. Closed any other way (failed, terminated, timed out)
  // it says so, whatever its search attributes claim: anyone who starts a workflow may set them.
  const closedWithoutRecord = status !== 'RUNNING' && (p !== 'terminal' || status !== 'COMPLETED');
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
