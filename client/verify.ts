// Offline verification of an exported run's approvals: every signed statement must verify under
// the directory's key for its signer and be bound to this run, this request and the decision
// recorded; the effect that ran must be the call that was signed. Needs no Temporal, no worker
// and no private key: an auditor runs it on an export file and the approver directory.
import { approvalDigest } from '../workflows/controller/approvals.js';
import type { ApproverDirectory } from '../workflows/trust/directory.js';
import { verifyStatement, type SignedDecision } from '../workflows/trust/statement.js';
import type { RunExport } from './export-schema.js';

export interface StatementCheck {
  requestId: string;
  /** What the run recorded for the request (`pending` for one still open in the export). */
  recorded: RunExport['approvals'][number]['decision'] | 'pending';
  by: string;
  decision: SignedDecision['statement']['decision'];
  ok: boolean;
  /** Why it failed; absent when ok. */
  reason?: string;
  /** Whether the signed digest was compared with the effect that ran (absent if it did not run). */
  digestChecked: boolean;
}

export interface RecordProblem {
  requestId: string;
  recorded: string;
  reason: string;
}

/** What verifyExport found: each signed statement checked against the directory, and any problem with the record. */
export interface VerifyReport {
  runId: string;
  ok: boolean;
  /** True when the run's decisions had to be signed (every run with a rule set, guardVersion 2 in older exports, or any signed record). */
  signedRun: boolean;
  statements: StatementCheck[];
  /** Decisions that should carry signed statements and do not, or whose signers disagree with the record. */
  problems: RecordProblem[];
  /** Decided records without statements in a run that predates signing: shown, not failed. */
  unsigned: Array<{ requestId: string; recorded: string; by: string }>;
}

/** Checks an exported run offline: every signed statement verifies under its signer's directory key and is bound to this run, request and recorded decision; no Temporal, worker or private key needed. */
export function verifyExport(record: RunExport, directory: ApproverDirectory): VerifyReport {
  const signedRun = record.ruleSet !== undefined || record.guardVersion === 2 || record.approvals.some((a) => a.signed !== undefined);
  const statements: StatementCheck[] = [];
  const problems: RecordProblem[] = [];
  const unsigned: VerifyReport['unsigned'] = [];

  for (const a of record.approvals) {
    if (a.decision === 'amended') {
      const problem = amendmentProblem(record, a, directory);
      if (problem) problems.push({ requestId: a.requestId, recorded: a.decision, reason: problem });
      continue;
    }
    const expected = a.decision === 'approved' ? 'approve' : a.decision === 'denied' ? 'deny' : undefined;
    const signed = a.signed ?? [];
    if (expected && signed.length === 0) {
      if (signedRun)
        problems.push({ requestId: a.requestId, recorded: a.decision, reason: `recorded as ${a.decision} by ${a.by} without any signed statement` });
      else unsigned.push({ requestId: a.requestId, recorded: a.decision, by: a.by });
      continue;
    }
    // The call that ran under this approval, if the export holds it: the signed digest must be its digest.
    const effect = record.effects.find((e) => e.callId === a.callId);
    for (const s of signed) statements.push(checkStatement(record, a.requestId, a.decision, expected, s, directory, effect));
    if (expected && signed.length > 0) {
      const signers = signed.map((s) => s.statement.by);
      const named = a.by.split(',').map((b) => b.trim());
      if (new Set(signers).size !== signers.length)
        problems.push({ requestId: a.requestId, recorded: a.decision, reason: 'the same approver signed more than once' });
      if ([...signers].sort().join(',') !== [...named].sort().join(',')) {
        problems.push({ requestId: a.requestId, recorded: a.decision, reason: `recorded as ${a.decision} by ${a.by}, but signed by ${signers.join(', ')}` });
      }
    }
  }
  const pending = record.pendingApproval;
  for (const s of pending?.collected ?? []) {
    statements.push(checkStatement(record, pending?.requestId ?? '', 'pending', 'approve', s, directory, undefined));
  }
  return { runId: record.runId, ok: problems.length === 0 && statements.every((s) => s.ok), signedRun, statements, problems, unsigned };
}

function checkStatement(
  { runId, chain }: Pick<RunExport, 'runId' | 'chain'>,
  requestId: string,
  recorded: StatementCheck['recorded'],
  expected: 'approve' | 'deny' | undefined,
  signed: SignedDecision,
  directory: ApproverDirectory,
  effect: RunExport['effects'][number] | undefined,
): StatementCheck {
  const s = signed.statement;
  const result = (reason?: string, digestChecked = false): StatementCheck => ({
    requestId,
    recorded,
    by: s.by,
    decision: s.decision,
    ok: reason === undefined,
    ...(reason !== undefined ? { reason } : {}),
    digestChecked,
  });
  const keys = directory.approvers.filter((a) => a.id === s.by);
  if (keys.length === 0) return result(`${s.by} is not in the directory`);
  if (keys.length > 1) return result(`${s.by} is listed ${keys.length} times in the directory`);
  if (!verifyStatement(signed, keys[0]?.publicKey ?? '')) return result(`the signature does not verify under ${s.by}'s key`);
  if (s.runId !== runId) return result(`signed for run ${s.runId}, not ${runId}`);
  if (s.requestId !== requestId) return result(`signed for request ${s.requestId}, not ${requestId}`);
  if (expected && s.decision !== expected) return result(`the statement says ${s.decision}, but the run recorded ${recorded}`);
  if (!effect) return result();
  const ran = approvalDigest(runId, requestId, { ...effect, kind: 'effect', idempotent: false }, chain);
  if (s.digest !== ran) return result(`the signed call is not the ${effect.tool} call that ran (${effect.callId})`, true);
  return result(undefined, true);
}

/** An amendment on record must be the signed word of a directory key, for this run and request. */
function amendmentProblem(record: RunExport, approval: RunExport['approvals'][number], directory: ApproverDirectory): string | undefined {
  const signed = approval.amendment;
  if (!signed) return `recorded as amended by ${approval.by} without the signed amendment`;
  const s = signed.statement;
  const keys = directory.approvers.filter((a) => a.id === s.by);
  if (keys.length !== 1) return `the amendment's signer ${s.by} is ${keys.length === 0 ? 'not in the directory' : 'listed more than once'}`;
  if (!verifyStatement(signed, keys[0]?.publicKey ?? '')) return `the amendment does not verify under ${s.by}'s key`;
  if (s.runId !== record.runId || s.requestId !== approval.requestId) return `the amendment is signed for ${s.runId} ${s.requestId}, not this request`;
  if (s.by !== approval.by) return `recorded as amended by ${approval.by}, but signed by ${s.by}`;
  return undefined;
}
