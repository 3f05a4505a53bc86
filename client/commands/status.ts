// status: one look at a run: phase, turn, budgets left, the pending approval (what it is about,
// who may decide, how many have, whether its precondition holds) and how the run ended. It is
// AgentClient.inspect printed: the server's facts win over the worker's view. A run no worker
// polls (the query is then not even sent), whose workflow task keeps failing, or whose worker
// does not answer within a few seconds is shown from what the server knows, and the output says
// so in words; a run terminated from outside says "terminated", and an effect it left in flight
// is not shown as if the run would still read it back.
import { budgetLine, compact, duration, isoTime, table, timestamp } from '../format.js';
import { abandonedEffects, abandonedWords, closedWords, statusWords, type RunReport } from '../run-report.js';
import { buildWords } from '../run-build.js';
import { toRunView, type RunView } from '../run-view.js';
import type { CommandContext, CommandRun } from './types.js';

/** How long status waits for the run's worker before falling back to what the server knows. */
export const STATUS_QUERY_TIMEOUT_MS = 5_000;

/** `1 of 2 approvals: alice@ops` */
export function quorumLine(awaiting: NonNullable<RunView['awaiting']>): string {
  const who = awaiting.approvedBy.length ? `: ${awaiting.approvedBy.join(', ')}` : '';
  return `${awaiting.approvedBy.length} of ${awaiting.quorum} approval${awaiting.quorum === 1 ? '' : 's'}${who}`;
}

export const status: CommandRun = async (ctx, args) => {
  const runId = args.run ?? '';
  const report = await (await ctx.agent()).inspect(runId, { timeoutMs: STATUS_QUERY_TIMEOUT_MS });
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
        awaiting: awaiting ?? null,
        terminal: view.terminal,
        /** Effects the run's state still calls in flight although it has closed: nothing will read them back. */
        abandonedEffects: abandoned.map((e) => ({ key: e.key, tool: e.tool, args: e.args, ...(e.subject ? { subject: e.subject } : {}) })),
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
    for (const [label, value] of Object.entries(awaiting.display ?? {})) rows.push([`  ${label}`, value]);
    rows.push(['  request', awaiting.requestId], ['  roles', awaiting.roles.join(' or ')]);
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
    rows.push(['  expires', `${timestamp(awaiting.expiresAt)} (in ${duration(awaiting.expiresAt - Date.now())})`]);
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

/** What the server knows, when the worker's view is not there: exit 0, and lines saying why. */
function serverStatus(ctx: CommandContext, report: RunReport): void {
  const note = report.notices.join('; ');
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
    ['phase', report.phase ?? '- (the run has not recorded one yet)'],
    [
      'terminal',
      report.terminal ? `${report.terminal} (${report.stopReason ?? 'no reason recorded'})` : report.closed ? `- (${closedWords(report.closed, false)})` : '-',
    ],
    ...executionRows(report),
  ];
  for (const line of table(rows)) ctx.out(line);
  for (const notice of report.notices) ctx.out(notice);
}
