// A run's page rendered from AgentClient.inspect's report, so the page answers whether or not a
// worker does. With the worker's view it is the usual run page under a banner of what the server
// knows that the run's state cannot say (terminated, no worker polls its queue, a workflow task
// that keeps failing, an effect left in flight by a run that closed). Without it the page shows
// the server's facts: domain, case, phase and outcome from the search attributes, the execution's
// status and task queue, and the same words. Escaped like every view (hono's html``).
import { html } from 'hono/html';
import { isoTime } from '../client/format.js';
import { abandonedEffects, abandonedWords, statusWords, type RunReport } from '../client/run-report.js';
import { buildWords } from '../client/run-build.js';
import { toRunView } from '../client/to-run-view.js';
import { layout, type Html } from './layout.js';
import { runFragment } from './run-page.js';

/** The server's facts in words, above everything else on the page. */
function banner(report: RunReport): Html {
  const abandoned = abandonedEffects(report);
  if (!report.notices.length && !abandoned.length) return html``;
  return html`<section class="server-truth" role="alert" data-answered-by="${report.answeredBy}">
    ${report.notices.map((n) => html`<p>${n}</p>`)}
    ${abandoned.map((e) => html`<p><strong>${e.tool}</strong> <code>${JSON.stringify(e.args)}</code> ${report.closed ? abandonedWords(report.closed) : ''}</p>`)}
  </section>`;
}

function serverFacts(report: RunReport, now: number): Html {
  return html`<section class="summary">
    <h1>${report.runId}</h1>
    <p class="status">
      <span class="badge p-${report.phase ?? 'unknown'}">${report.phase ?? 'unknown'}</span>${
        report.terminal ? html` <span class="badge t-${report.terminal}">${report.terminal}</span> <code class="reason">${report.stopReason ?? ''}</code>` : ''
      } <span class="badge warn">${statusWords(report.status)}</span>
    </p>
    <dl>
      <dt>domain</dt>
      <dd>${report.domain ?? '—'}</dd>
      <dt>case</dt>
      <dd>${report.caseId ?? '—'}</dd>
      <dt>execution</dt>
      <dd>
        ${statusWords(report.status)}, started
        ${isoTime(Date.parse(report.startTime))}${report.closeTime ? `, closed ${isoTime(Date.parse(report.closeTime))}` : ''}
      </dd>
      <dt>task queue</dt>
      <dd>
        <code>${report.taskQueue}</code
        >${report.pollers.checked ? ` (${report.pollers.recent ? `${report.pollers.recent} polling` : 'no worker polling'})` : ''}
      </dd>
      ${
        report.build
          ? html`<dt>build</dt>
              <dd class="build">${buildWords(report.build)}</dd>`
          : ''
      }
    </dl>
    <p class="muted">
      The run's own record (turns, evidence, effects, approvals) is read by a worker replaying its history; until one serves task queue
      <code>${report.taskQueue}</code>, this is what the server knows.
    </p>
    <p class="muted asof">as of ${isoTime(now)}</p>
  </section>`;
}

/** The part of a run's page that live updates replace. */
export function reportFragment(report: RunReport, now: number): Html {
  if (!report.view) return html`${banner(report)}${serverFacts(report, now)}`;
  // A request on a run that has closed can never be decided: it is not offered.
  const run = toRunView(report.view);
  const view = report.closed ? { ...run, awaiting: null } : run;
  return html`${banner(report)}${buildLine(report)}${runFragment(view, now)}`;
}

/** Which build the run is on, under Worker Versioning: the worker's view does not say it, the server does. */
function buildLine(report: RunReport): Html {
  return report.build
    ? html`<p class="build muted" data-build="${report.build.deploymentName}.${report.build.buildId}">build ${buildWords(report.build)}</p>`
    : html``;
}

/** Whether the page can stop following the run: it recorded its end, or the server says it closed. */
export function reportDone(report: RunReport): boolean {
  return report.closed !== null || (report.view !== null && toRunView(report.view).terminal !== null);
}

export function reportPage(report: RunReport, now: number): Html {
  return layout(
    report.runId,
    'run',
    html`<p id="live-status" class="muted" role="status">${reportDone(report) ? 'The run has ended.' : 'Live: updates as the run moves.'}</p>
      <div id="live" data-live="/runs/${encodeURIComponent(report.runId)}/live">${reportFragment(report, now)}</div>`,
  );
}
