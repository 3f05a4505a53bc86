// status: one look at a run: phase, turn, budgets left, the pending approval (what it is about,
// who may decide, how many have, whether its precondition holds) and how the run ended. When no
// worker answers the state query within a few seconds, it shows what the server knows instead
// (execution status and the run's search attributes) and says so: an operator at a dead worker
// still learns whether the run is there, which case it is and how far it got.
import type { RunView } from '../../workflows/messages.js';
import type { AgentClient } from '../agent-client.js';
import { WorkerTimeoutError } from '../agent-errors.js';
import { budgetLine, compact, duration, table, timestamp } from '../format.js';
import type { CommandContext, CommandRun } from './types.js';

/** How long status waits for the run's worker before falling back to what the server knows. */
export const STATUS_QUERY_TIMEOUT_MS = 5_000;

/** Runs with the trust boundary stop their deadline's clock while a person decides. */
export function deadlinePaused(view: RunView): boolean {
  return view.state.guardVersion === 2 && view.state.phase === 'awaiting_approval';
}

/** `1 of 2 approvals: alice@ops` */
export function quorumLine(awaiting: NonNullable<RunView['awaiting']>): string {
  const who = awaiting.approvedBy.length ? `: ${awaiting.approvedBy.join(', ')}` : '';
  return `${awaiting.approvedBy.length} of ${awaiting.quorum} approval${awaiting.quorum === 1 ? '' : 's'}${who}`;
}

export const status: CommandRun = async (ctx, args) => {
  const runId = args.run ?? '';
  const agent = await ctx.agent();
  let view: RunView;
  try {
    view = await agent.state(runId, { timeoutMs: STATUS_QUERY_TIMEOUT_MS });
  } catch (err) {
    if (!(err instanceof WorkerTimeoutError)) throw err;
    await serverStatus(ctx, agent, runId, err.timeoutMs);
    return;
  }
  const st = view.state;
  const awaiting = view.awaiting;
  const paused = deadlinePaused(view);
  if (ctx.json) {
    ctx.out(
      JSON.stringify({
        runId: st.runId,
        domain: st.domain,
        caseId: st.caseId,
        phase: st.phase,
        turn: st.turn,
        budgets: st.budgets,
        used: { turns: st.turn, ...st.used },
        budgetLeft: view.budgetLeft,
        /** While true, budgetLeft.msLeft shrinks on paper only: the deadline moves on when the request closes. */
        deadlinePaused: paused,
        awaiting: awaiting ?? null,
        terminal: st.terminal ?? null,
      }),
    );
    return;
  }
  const budget = paused
    ? [...budgetLine(view.budgetLeft).split(', ').filter((part) => !part.startsWith('time ')), 'time paused while awaiting approval'].join(', ')
    : budgetLine(view.budgetLeft);
  const rows: Array<[string, string]> = [
    ['run', st.runId],
    ['domain', st.domain],
    ['case', st.caseId],
    ['phase', st.phase],
    ['turn', `${st.turn} of ${st.budgets.turns}`],
    ['budget left', budget],
  ];
  if (awaiting) {
    rows.push(['awaiting', `approval of ${awaiting.tool} ${compact(awaiting.args)}`]);
    if (awaiting.subject) rows.push(['  subject', awaiting.subject]);
    rows.push(['  request', awaiting.requestId], ['  roles', awaiting.roles.join(' or ')]);
    if (awaiting.signed) {
      rows.push(
        ['  quorum', quorumLine(awaiting)],
        ['  eligible', awaiting.eligible.length ? awaiting.eligible.join(', ') : '(the approver directory is still loading)'],
      );
    } else {
      rows.push(['  signing', 'this run predates signed approvals: it cannot be approved, only cancelled or left to expire']);
    }
    if (awaiting.precondition?.ok === false) rows.push(['  precondition', `VIOLATED: ${awaiting.precondition.reason ?? 'no reason given'} (approving accepts this)`]);
    rows.push(['  expires', `${timestamp(awaiting.expiresAt)} (in ${duration(awaiting.expiresAt - Date.now())})`]);
  } else {
    rows.push(['awaiting', '-']);
  }
  rows.push(['terminal', st.terminal ? `${st.terminal.class} (${st.terminal.reason}) ${st.terminal.detail}`.trim() : '-']);
  for (const line of table(rows)) ctx.out(line);
};

/** What the server knows, when no worker answered: exit 0, and a line saying where it came from. */
async function serverStatus(ctx: CommandContext, agent: AgentClient, runId: string, waitedMs: number): Promise<void> {
  const d = await agent.describe(runId);
  const note = `no worker answered the state query within ${duration(waitedMs)}; showing what the server knows`;
  if (ctx.json) {
    ctx.out(
      JSON.stringify({
        runId: d.runId,
        domain: d.domain,
        caseId: d.caseId,
        phase: d.phase,
        terminal: d.terminal ? { class: d.terminal, reason: d.stopReason } : null,
        status: d.status,
        startTime: d.startTime,
        closeTime: d.closeTime,
        taskQueue: d.taskQueue,
        /** False: the fields above come from the server (search attributes), not from the run. */
        stateAnswered: false,
        note,
      }),
    );
    return;
  }
  const rows: Array<[string, string]> = [
    ['run', d.runId],
    ['domain', d.domain ?? '-'],
    ['case', d.caseId ?? '-'],
    ['phase', d.phase ?? '- (the run has not recorded one yet)'],
    ['execution', `${d.status.toLowerCase()}, started ${d.startTime}${d.closeTime ? `, closed ${d.closeTime}` : ''}`],
    ['task queue', d.taskQueue],
    ['terminal', d.terminal ? `${d.terminal} (${d.stopReason ?? 'no reason recorded'})` : '-'],
  ];
  for (const line of table(rows)) ctx.out(line);
  ctx.out(note);
}
