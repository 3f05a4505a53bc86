// status: one look at a run: phase, turn, budgets left, the pending approval (what it is about,
// who may decide, how many have, whether its precondition holds) and how the run ended. It is
// AgentClient.inspect printed: the server's facts win over the worker's view. A run no worker
// polls (the query is then not even sent), whose workflow task keeps failing, or whose worker
// does not answer within a few seconds is shown from what the server knows, and the output says
// so in words; a run terminated from outside says "terminated", and an effect it left in flight
// is not shown as if the run would still read it back. A run on a task queue this engine's
// workers do not serve is not one of its runs, whatever its type and search attributes say
// (anyone who can start a workflow can make one look like ours, with a worker of their own that
// answers the state query as it likes): it is never asked, and the output says so first. The
// pending request is named by the id to decide it by, pinned to the call shown (`<request
// id>#<digest prefix>`): approve given that id signs nothing if, by the time it runs, another call
// is pending under the request id (a reset run, or one started again under the same id).
import { evidenceOnCard, evidenceWords, proposerWords, splitDisplay, starterWords, validForWords } from '../card-words.js';
import { budgetLine, compact, duration, isoTime, table, timestamp } from '../format.js';
import { notServedWords } from '../list-query.js';
import { pinnedRequestId } from '../pending-request.js';
import { abandonedEffects, abandonedWords, closedWords, statusWords, type RunReport } from '../run-report.js';
import { buildWords } from '../run-build.js';
import { type RunView } from '../run-view.js';
import { toRunView } from '../to-run-view.js';
import { DEFAULT_VALID_FOR_MS } from '../sign.js';
import type { CommandContext, CommandRun } from './types.js';

/**
 * How long status waits for the run's worker before falling back to what the server knows:
 * `AGENT_STATUS_TIMEOUT_MS` (1 s to 2 min), else 5 s. A busy worker host answers late, not never.
 */
function statusTimeout(raw: string | undefined): number {
  const ms = Number(raw);
  return raw !== undefined && Number.isInteger(ms) && ms >= 1_000 && ms <= 120_000 ? ms : 5_000;
}

/** `1 of 2 approvals: alice@ops` */
export function quorumLine(awaiting: NonNullable<RunView['awaiting']>): string {
  const who = awaiting.approvedBy.length ? `: ${awaiting.approvedBy.join(', ')}` : '';
  return `${awaiting.approvedBy.length} of ${awaiting.quorum} approval${awaiting.quorum === 1 ? '' : 's'}${who}`;
}

export const status: CommandRun = async (ctx, args) => {
  const runId = args.run ?? '';
  const agent = await ctx.agent();
  // The server places the execution: a run on a queue nobody here serves is not asked at all.
  const served = agent.serves((await agent.describe(runId)).taskQueue);
  const report = await agent.inspect(runId, served ? { timeoutMs: statusTimeout(ctx.env.AGENT_STATUS_TIMEOUT_MS) } : { askWorker: false });
  if (!served || !agent.serves(report.taskQueue)) {
    serverStatus(ctx, report, notServedWords(report.taskQueue, agent.servedQueues));
    return;
  }
  if (!report.view) {
    serverStatus(ctx, report);
    return;
  }
  const view = toRunView(report.view);
  const turn = view.budgets.used.turns;
  // Closed without recording an outcome (terminated, timed out, ...): its state is frozen as it was.
  const frozen = report.closed && !view.terminal ? report.closed : null;
  const awaiting = frozen ? undefined : view.awaiting;
  const paused = !frozen && view.deadlinePaused;
  const abandoned = abandonedEffects(report);
  if (ctx.json) {
    ctx.out(
      JSON.stringify({
        runId: view.runId,
        domain: view.domain,
        caseId: view.caseId,
        phase: view.phase,
        turn,
        budgets: view.budgets.limits,
        used: view.budgets.used,
        budgetLeft: view.budgets.left,
        /** While true, budgetLeft.msLeft is the time left when the clock stopped: the deadline moves on when the request closes. */
        deadlinePaused: paused,
        headline: view.headline ?? null,
        /** pinnedRequestId: the id approve, deny and amend take, pinned to this call; requestId stays the run's own. */
        awaiting: awaiting ? { ...awaiting, pinnedRequestId: pinnedRequestId(awaiting.requestId, awaiting.digest) } : null,
        /** Who started the run: `by` is the verified signer of a signed start. */
        start: view.start,
        model: view.model ?? null,
        shape: view.shape ?? null,
        terminal: view.terminal,
        /** Effects the run's state still calls in flight although it has closed: nothing will read them back. */
        abandonedEffects: abandoned.map((e) => ({ key: e.key, tool: e.tool, args: e.args, ...(e.subject ? { subject: e.subject } : {}) })),
        served: true,
        ...serverJson(report),
      }),
    );
    return;
  }
  const budget = frozen ? '- (the run has closed)' : budgetLine(view.budgets.left, { paused });
  const rows: Array<[string, string]> = [
    ['run', view.runId],
    ['domain', view.domain],
    ['case', view.caseId],
    [
      'phase',
      frozen
        ? `${view.phase} when it ${frozen.as === 'terminated' ? 'was terminated' : `closed (${statusWords(frozen.as)})`}: it will not move again`
        : view.phase,
    ],
    ['started', isoTime(view.startedAt)],
    ['turn', `${turn} of ${view.budgets.limits.turns}`],
    ['budget left', budget],
  ];
  if (awaiting) {
    rows.push(['awaiting', `approval of ${awaiting.tool} ${compact(awaiting.args)}`]);
    if (awaiting.subject) rows.push(['  subject', awaiting.subject]);
    rows.push(['  started by', starterWords(view.start)], ['  proposed by', proposerWords(view, awaiting.proposedBy)]);
    // The facts the domain marks as arguing against the call come first, said as such.
    const { against, lines } = splitDisplay(awaiting.display);
    for (const [label, value] of against) rows.push([`  AGAINST ${label}`, value]);
    for (const [label, value] of lines) rows.push([`  ${label}`, value]);
    const now = Date.now();
    for (const e of evidenceOnCard(view, awaiting))
      rows.push([`  ${e.id}`, e.evidence ? evidenceWords(e.evidence, now) : "no longer in the run's state (it remains in the run's history)"]);
    rows.push(['  request', pinnedRequestId(awaiting.requestId, awaiting.digest)], ['  roles', awaiting.roles.join(' or ')]);
    if (awaiting.signed) {
      rows.push(
        ['  quorum', quorumLine(awaiting)],
        ['  eligible', awaiting.eligible.length ? awaiting.eligible.join(', ') : '(the approver directory is still loading)'],
      );
    } else {
      rows.push(['  signing', 'this run predates signed approvals: it cannot be approved, only cancelled or left to expire']);
    }
    if (awaiting.precondition?.ok === false)
      rows.push(['  precondition', `VIOLATED: ${awaiting.precondition.reason ?? 'no reason given'} (approving accepts this)`]);
    rows.push(['  expires', `${timestamp(awaiting.expiresAt)} (in ${duration(awaiting.expiresAt - now)}): the request closes then`]);
    if (awaiting.signed) rows.push(['  lifetime', `${validForWords(DEFAULT_VALID_FOR_MS)} (--valid-for SECONDS changes it)`]);
  } else {
    rows.push(['awaiting', frozen && view.awaiting ? `- (the request for ${view.awaiting.tool} closed with the run: nobody can decide it)` : '-']);
  }
  for (const e of abandoned) rows.push(['effect', `${e.tool} ${compact(e.args)} ${frozen ? abandonedWords(frozen) : ''}`.trim()]);
  rows.push([
    'terminal',
    view.terminal
      ? `${view.terminal.class} (${view.terminal.reason}) ${view.terminal.detail}, at ${isoTime(view.terminal.at)}`.trim()
      : frozen
        ? `- (${closedWords(frozen, false)})`
        : '-',
  ]);
  if (view.terminal) rows.unshift(['headline', view.headline ?? '-']);
  rows.push(...executionRows(report));
  for (const line of table(rows)) ctx.out(line);
  for (const notice of report.notices) ctx.out(notice);
};

/** What the server knows about the execution, beside the run's own fields (status --json). */
function serverJson(report: RunReport) {
  return {
    /** Which path answered: `worker` (the run's own state) or `server` (its facts alone). */
    answeredBy: report.answeredBy,
    stateAnswered: report.view !== null,
    /** False when the state query was never sent: the server said nobody would answer it. */
    workerAsked: report.workerAsked,
    execution: {
      status: report.status,
      taskQueue: report.taskQueue,
      startTime: report.startTime,
      closeTime: report.closeTime,
      closed: report.closed,
      pollers: report.pollers,
      workflowTaskFailure: report.workflowTaskFailure,
      /** The build the execution is on under Worker Versioning; null when it is not versioned. */
      build: report.build ?? null,
    },
    /** What the server knows that the run's state cannot say, in words. */
    notices: report.notices,
  };
}

function executionRows(report: RunReport): Array<[string, string]> {
  const rows: Array<[string, string]> = [
    ['execution', `${statusWords(report.status)}, started ${report.startTime}${report.closeTime ? `, closed ${report.closeTime}` : ''}`],
    [
      'task queue',
      `${report.taskQueue}${report.pollers.checked ? ` (${report.pollers.recent ? `${report.pollers.recent} worker${report.pollers.recent === 1 ? '' : 's'} polling` : 'no worker polling'})` : ''}`,
    ],
  ];
  if (report.build) rows.push(['build', buildWords(report.build)]);
  if (report.workflowTaskFailure)
    rows.push(['workflow task', `failing (attempt ${report.workflowTaskFailure.attempt}): ${report.workflowTaskFailure.message.split('\n')[0] ?? ''}`]);
  return rows;
}

/**
 * What the server knows, when the worker's view is not there: exit 0, and lines saying why.
 * `notServed` (a run on a queue this engine does not serve) comes first, and the phase and
 * outcome its starter set are said to be only that.
 */
function serverStatus(ctx: CommandContext, report: RunReport, notServed?: string): void {
  const note = [...(notServed ? [notServed] : []), ...report.notices].join('; ');
  const claimed = notServed ? ", as its starter set it (not this engine's record)" : '';
  if (ctx.json) {
    ctx.out(
      JSON.stringify({
        runId: report.runId,
        domain: report.domain,
        caseId: report.caseId,
        phase: report.phase,
        terminal: report.terminal ? { class: report.terminal, reason: report.stopReason } : null,
        status: report.status,
        startTime: report.startTime,
        closeTime: report.closeTime,
        taskQueue: report.taskQueue,
        /** False: the run's task queue is not one this engine serves; it is not one of its runs. */
        served: !notServed,
        /** The fields above come from the server (search attributes), not from the run. */
        ...serverJson(report),
        note,
      }),
    );
    return;
  }
  const rows: Array<[string, string]> = [
    ['run', report.runId],
    ['domain', report.domain ?? '-'],
    ['case', report.caseId ?? '-'],
    ['phase', report.phase ? `${report.phase}${claimed}` : '- (the run has not recorded one yet)'],
    [
      'terminal',
      report.terminal
        ? `${report.terminal} (${report.stopReason ?? 'no reason recorded'})${claimed}`
        : report.closed
          ? `- (${closedWords(report.closed, false)})`
          : '-',
    ],
    ...executionRows(report),
  ];
  if (notServed) ctx.out(`NOT ONE OF THIS ENGINE'S RUNS: ${notServed}; it was not asked, and nothing it says is shown`);
  for (const line of table(rows)) ctx.out(line);
  for (const notice of report.notices) ctx.out(notice);
}
