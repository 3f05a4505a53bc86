// Runs by their search attributes. Visibility is eventually consistent: a run that has just
// changed phase may take a moment to show up under its new phase.
import { TerminalClass } from '../../workflows/controller/state.js';
import { caseKey, domainKey, phaseKey, stopReasonKey, terminalKey, VisiblePhase } from '../../workflows/search-attributes.js';
import { UsageError } from '../errors.js';
import type { CommandRun, Flags } from './types.js';

export interface ListRow {
  runId: string;
  domain: string | null;
  caseId: string | null;
  phase: string | null;
  terminal: string | null;
  stopReason: string | null;
  status: string;
  startTime: string;
}

/** A visibility query string; values are quoted, and values that could break out are refused. */
export function buildListQuery(filter: { domain?: string; phase?: string; terminal?: string }): string {
  const clauses = [`WorkflowType = 'agentWorkflow'`];
  if (filter.domain !== undefined) clauses.push(`${domainKey.name} = ${quote('domain', filter.domain)}`);
  if (filter.phase !== undefined) {
    clauses.push(`${phaseKey.name} = ${quote('phase', filter.phase)}`);
    // A run that closed without a terminal record (terminated, failed) keeps its last phase;
    // it is not proposing or waiting for anyone any more.
    if (filter.phase !== 'terminal') clauses.push(`ExecutionStatus = 'Running'`);
  }
  if (filter.terminal !== undefined) clauses.push(`${terminalKey.name} = ${quote('terminal', filter.terminal)}`);
  return clauses.join(' AND ');
}

function quote(flag: string, value: string): string {
  // eslint-disable-next-line no-control-regex
  if (/['"`\\\u0000-\u001f]/.test(value)) throw new UsageError(`--${flag} may not contain quotes, backslashes or control characters`);
  if (!value) throw new UsageError(`--${flag} may not be empty`);
  return `'${value}'`;
}

function filterFrom(flags: Flags): { domain?: string; phase?: string; terminal?: string } {
  const domain = flags.str('domain');
  let phase = flags.str('phase');
  const terminal = flags.str('terminal');
  if (flags.bool('awaiting-approval')) {
    if (phase !== undefined && phase !== 'awaiting_approval') throw new UsageError('--awaiting-approval and --phase disagree');
    phase = 'awaiting_approval';
  }
  if (phase !== undefined && !VisiblePhase.safeParse(phase).success) throw new UsageError(`--phase must be one of ${VisiblePhase.options.join(', ')}`);
  if (terminal !== undefined && !TerminalClass.safeParse(terminal).success) throw new UsageError(`--terminal must be one of ${TerminalClass.options.join(', ')}`);
  return { ...(domain !== undefined ? { domain } : {}), ...(phase !== undefined ? { phase } : {}), ...(terminal !== undefined ? { terminal } : {}) };
}

export const list: CommandRun = async (ctx, _args, flags) => {
  const query = buildListQuery(filterFrom(flags));
  const limit = flags.int('limit', 1, 10_000) ?? 50;
  const client = await ctx.client();
  const rows: ListRow[] = [];
  for await (const info of client.workflow.list({ query, pageSize: Math.min(limit, 1_000) })) {
    const sa = info.typedSearchAttributes;
    rows.push({
      runId: info.workflowId,
      domain: sa.get(domainKey) ?? null,
      caseId: sa.get(caseKey) ?? null,
      phase: sa.get(phaseKey) ?? null,
      terminal: sa.get(terminalKey) ?? null,
      stopReason: sa.get(stopReasonKey) ?? null,
      status: info.status.name,
      startTime: info.startTime.toISOString(),
    });
    if (rows.length >= limit) break;
  }
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
