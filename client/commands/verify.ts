// verify: the offline audit of `agent export` output. Reads the export and the approver
// directory from files, checks every effect and every signed approval (client/verify.ts) and
// prints one line per statement and per effect; if anything fails it ends with one error line
// and exit 1. Never connects to Temporal.
import { readFileSync } from 'node:fs';
import { RULE_SET } from '../../workflows/rule-set.js';
import { ApproverDirectory } from '../../workflows/trust/directory.js';
import { formatZodError } from '../errors.js';
import { RunExport } from '../export-schema.js';
import { CliError, UsageError } from '../usage.js';
import { ruleSetNumber } from '../verify-generation.js';
import { verifyExport, type VerifyOptions } from '../verify.js';
import type { CommandRun, Flags } from './types.js';

function readJson(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${what} ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`${what} ${path} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** What the auditor insists on: `--require-approval`, `--min-rule-set`, `--accept-unversioned`. */
function options(flags: Flags): VerifyOptions {
  const min = flags.str('min-rule-set');
  if (min !== undefined && ruleSetNumber(min.trim()) === undefined) throw new UsageError(`--min-rule-set must be a rule set such as ${RULE_SET}, got '${min}'`);
  const tools = (flags.str('require-approval') ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (flags.str('require-approval') !== undefined && tools.length === 0) throw new UsageError('--require-approval needs one or more tool names: TOOL[,TOOL]');
  return {
    ...(tools.length ? { requireApproval: tools } : {}),
    ...(min !== undefined ? { minRuleSet: min.trim() } : {}),
    ...(flags.bool('accept-unversioned') ? { acceptUnversioned: true } : {}),
  };
}

export const verify: CommandRun = (ctx, args, flags) => {
  const exportPath = args.export ?? '';
  const directoryPath = flags.str('directory');
  if (!directoryPath) throw new UsageError('verify needs --directory <file>: the approver directory ({"approvers":[...]}) to check signatures against');
  const record = RunExport.safeParse(readJson(exportPath, 'export'));
  if (!record.success) throw new CliError(`${exportPath} is not a run export: ${formatZodError(record.error)}`);
  const directory = ApproverDirectory.safeParse(readJson(directoryPath, 'directory'));
  if (!directory.success) throw new CliError(`${directoryPath} is not an approver directory: ${formatZodError(directory.error)}`);

  const report = verifyExport(record.data, directory.data, options(flags));
  if (ctx.json) {
    ctx.out(JSON.stringify(report));
  } else {
    for (const p of report.exportProblems) ctx.out(`FAILED export: ${p}`);
    for (const s of report.statements) {
      const what = `${s.by} ${s.decision} request ${s.requestId}`;
      const matches = s.recorded === 'pending' ? '; matches the pending call' : '; matches the call that ran';
      if (s.ok) ctx.out(`ok ${what}${s.recorded === 'pending' ? ' (pending)' : ''}${s.digestChecked ? matches : ''}`);
      else ctx.out(`FAILED ${what}: ${s.reason ?? 'unknown reason'}`);
    }
    for (const p of report.problems) ctx.out(`FAILED request ${p.requestId}: ${p.reason}`);
    for (const u of report.unsigned) ctx.out(`unsigned ${u.recorded} by ${u.by} request ${u.requestId} (the run predates signed approvals)`);
    for (const e of report.effects) {
      const what = `effect ${e.callId} ${e.tool}`;
      const by = (e.approvedBy ?? []).join(', ');
      if (!e.ok) ctx.out(`FAILED ${what}: ${e.reason ?? 'unknown reason'}`);
      else if (!e.needsApproval) ctx.out(`ok ${what}: needs no approval`);
      else if (e.unsigned) ctx.out(`unsigned ${what}: approved by ${by} without signed statements (the run predates signed approvals)`);
      else if (e.onPersonsWord?.length)
        ctx.out(
          `ok ${what}: on a person's decision about ${e.onPersonsWord.map((v) => JSON.stringify(v).slice(0, 80)).join(', ')}: approved by ${by}, digest matches`,
        );
      else ctx.out(`ok ${what}: approved by ${by}, digest matches`);
    }
  }
  // One count for every FAILED line above.
  const failed =
    report.exportProblems.length + report.statements.filter((s) => !s.ok).length + report.problems.length + report.effects.filter((e) => !e.ok).length;
  if (failed) throw new CliError(`run ${report.runId} failed verification: ${failed} problem${failed === 1 ? '' : 's'} (see above)`);
  if (!ctx.json) ctx.out(`verified: run ${report.runId}, ${report.statements.length} signed statement${report.statements.length === 1 ? '' : 's'}`);
  return Promise.resolve();
};
