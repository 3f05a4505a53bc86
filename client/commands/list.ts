// list: runs by their search attributes, through AgentClient.list. Visibility is eventually
// consistent: a run that has just changed phase may take a moment to show up under its new phase.
// Beside each row, what the server says that the row cannot: a running run whose task queue no
// worker polls, a run that closed without recording an outcome (terminated, timed out, ...),
// and a run on a task queue this engine's workers do not serve: whatever its type and search
// attributes say, it is not one of the engine's runs (anyone who can start a workflow can make
// one look like ours), so its phase and outcome are only what its starter set.
import { statusWords } from '../run-report.js';
import { buildCell } from '../run-build.js';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, notServedWords, validateListFilter, type ListFilter } from '../list-query.js';
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
  const filter = {
    ...(domain !== undefined ? { domain } : {}),
    ...(phase !== undefined ? { phase } : {}),
    ...(terminal !== undefined ? { terminal } : {}),
    limit,
  };
  // Checked before anything connects, in the flags' own words.
  validateListFilter(filter, (field) => `--${field}`);
  return filter;
}

export const list: CommandRun = async (ctx, _args, flags) => {
  const filter = filterFrom(flags);
  const agent = await ctx.agent();
  const rows = await agent.list(filter);
  const notices = await agent.rowNotices(rows);
  const foreign = (r: (typeof rows)[number]) => (r.served === false ? notServedWords(r.taskQueue, agent.servedQueues) : null);
  if (ctx.json) {
    ctx.out(JSON.stringify(rows.map((r) => ({ ...r, notice: notices.get(r) ?? null, notServed: foreign(r) }))));
    return;
  }
  if (rows.length === 0) {
    ctx.out('no runs match');
    return;
  }
  // The build column only where some run is under Worker Versioning (client/run-build.ts).
  const builds = rows.some((r) => r.build);
  const header = ['RUN', 'DOMAIN', 'CASE', 'PHASE', 'TERMINAL', 'STOP REASON', 'STATUS', ...(builds ? ['BUILD'] : []), 'NOTE'];
  const cells = rows.map((r) => [
    r.runId,
    r.domain ?? '-',
    r.caseId ?? '-',
    r.phase ?? '-',
    r.terminal ?? '-',
    r.stopReason ?? '-',
    statusWords(r.status),
    ...(builds ? [buildCell(r.build)] : []),
    [notices.get(r), foreign(r)].filter(Boolean).join('; '),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  for (const line of [header, ...cells])
    ctx.out(
      line
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    );
};
