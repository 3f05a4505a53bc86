import { budgetLine, compact, duration, table, timestamp } from '../format.js';
import { fetchView } from '../runs.js';
import type { CommandRun } from './types.js';

export const status: CommandRun = async (ctx, args) => {
  const runId = args.run ?? '';
  const view = await fetchView(await ctx.client(), runId);
  const st = view.state;
  const awaiting = view.awaiting;
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
        awaiting: awaiting ? { requestId: awaiting.requestId, tool: awaiting.tool, args: awaiting.args, roles: awaiting.roles, expiresAt: awaiting.expiresAt, digest: awaiting.digest } : null,
        terminal: st.terminal ?? null,
      }),
    );
    return;
  }
  const rows: Array<[string, string]> = [
    ['run', st.runId],
    ['domain', st.domain],
    ['case', st.caseId],
    ['phase', st.phase],
    ['turn', `${st.turn} of ${st.budgets.turns}`],
    ['budget left', budgetLine(view.budgetLeft)],
  ];
  if (awaiting) {
    rows.push(
      ['awaiting', `approval of ${awaiting.tool} ${compact(awaiting.args)}`],
      ['  request', awaiting.requestId],
      ['  roles', awaiting.roles.join(' or ')],
      ['  expires', `${timestamp(awaiting.expiresAt)} (in ${duration(awaiting.expiresAt - Date.now())})`],
    );
  } else {
    rows.push(['awaiting', '-']);
  }
  rows.push(['terminal', st.terminal ? `${st.terminal.class} (${st.terminal.reason}) ${st.terminal.detail}`.trim() : '-']);
  for (const line of table(rows)) ctx.out(line);
};
