// verify: the offline audit of `agent export` output. Reads the export and the approver
// directory from files, checks every signed approval (client/verify.ts) and prints one line per
// statement; if anything fails it ends with one error line and exit 1. Never connects to Temporal.
import { readFileSync } from 'node:fs';
import { ApproverDirectory } from '../../workflows/trust/directory.js';
import { formatZodError } from '../errors.js';
import { RunExport } from '../export-schema.js';
import { CliError, UsageError } from '../usage.js';
import { verifyExport } from '../verify.js';
import type { CommandRun } from './types.js';

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

export const verify: CommandRun = (ctx, args, flags) => {
  const exportPath = args.export ?? '';
  const directoryPath = flags.str('directory');
  if (!directoryPath) throw new UsageError('verify needs --directory <file>: the approver directory ({"approvers":[...]}) to check signatures against');
  const record = RunExport.safeParse(readJson(exportPath, 'export'));
  if (!record.success) throw new CliError(`${exportPath} is not a run export: ${formatZodError(record.error)}`);
  const directory = ApproverDirectory.safeParse(readJson(directoryPath, 'directory'));
  if (!directory.success) throw new CliError(`${directoryPath} is not an approver directory: ${formatZodError(directory.error)}`);

  const report = verifyExport(record.data, directory.data);
  if (ctx.json) {
    ctx.out(JSON.stringify(report));
  } else {
    for (const s of report.statements) {
      const what = `${s.by} ${s.decision} request ${s.requestId}`;
      if (s.ok) ctx.out(`ok ${what}${s.recorded === 'pending' ? ' (pending)' : ''}${s.digestChecked ? '; matches the call that ran' : ''}`);
      else ctx.out(`FAILED ${what}: ${s.reason ?? 'unknown reason'}`);
    }
    for (const p of report.problems) ctx.out(`FAILED request ${p.requestId}: ${p.reason}`);
    for (const u of report.unsigned) ctx.out(`unsigned ${u.recorded} by ${u.by} request ${u.requestId} (the run predates signed approvals)`);
  }
  const failed = report.statements.filter((s) => !s.ok).length + report.problems.length;
  if (failed) throw new CliError(`run ${report.runId} failed verification: ${failed} problem${failed === 1 ? '' : 's'} (see above)`);
  if (!ctx.json) ctx.out(`verified: run ${report.runId}, ${report.statements.length} signed statement${report.statements.length === 1 ? '' : 's'}`);
  return Promise.resolve();
};
