// list: runs by their search attributes, through AgentClient.list. Visibility is eventually
// consistent: a run that has just changed phase may take a moment to show up under its new phase.
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, validateListFilter, type ListFilter } from '../list-query.js';
import { UsageError } from '../usage.js';
import type { CommandRun, Flags } from './types.js';

function filterFrom(flags: Flags): ListFilter {
  const domain = flags.str('domain');
  let phase = flags.str('phase');
  const terminal = flags.str('terminal');
  if (flags.bool('awaiting-approval')) {
    if (phase !== undefined && phase !== 'awaiting_approval') throw new UsageError('--awaiting-approval and --phase disagree');
    phase = 'awaiting_approval';
  }
  const limit = flags.int('limit', 1, MAX_LIST_LIMIT) ?? DEFAULT_LIST_LIMIT;
  const filter = { ...(domain !== undefined ? { domain } : {}), ...(phase !== undefined ? { phase } : {}), ...(terminal !== undefined ? { terminal } : {}), limit };
  // Checked before anything connects, in the flags' own words.
  validateListFilter(filter, (field) => `--${field}`);
  return filter;
}

export const list: CommandRun = async (ctx, _args, flags) => {
  const filter = filterFrom(flags);
  const rows = await (await ctx.agent()).list(filter);
  if (ctx.json) {
    ctx.out(JSON.stringify(rows));
    return;
  }
  if (rows.length === 0) {
    ctx.out('no runs match');
    return;
  }
  const header = ['RUN', 'DOMAIN', 'CASE', 'PHASE', 'TERMINAL', 'STOP REASON', 'STATUS'];
  const cells = rows.map((r) => [r.runId, r.domain ?? '-', r.caseId ?? '-', r.phase ?? '-', r.terminal ?? '-', r.stopReason ?? '-', r.status]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  for (const line of [header, ...cells]) ctx.out(line.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd());
};
