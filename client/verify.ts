// Offline verification of an exported run: every effect of a tool that needs approval must have
// an approved record whose signed statements verify under the directory's keys and whose signed
// digest is the call that ran (with the lines its approvers were shown); every signed statement
// must be bound to this run, this request and the decision recorded; and the export must carry
// what its rule set requires (client/verify-generation.ts). It walks the effects, not only the
// approvals it is shown: an effect whose record was deleted, or that was moved to another call
// id, fails instead of going unseen. Needs no Temporal, no worker and no private key: an auditor
// runs it on an export file and the approver directory.
import { approvalDigest } from '../workflows/controller/index.js';
import type { ApproverDirectory } from '../workflows/trust/directory.js';
import { verifyStatement, type SignedDecision } from '../workflows/trust/statement.js';
import type { RunExport } from './export-schema.js';
import { generationProblems, type GenerationOptions } from './verify-generation.js';

/** What the auditor insists on beyond what the export says of itself. */
export interface VerifyOptions extends GenerationOptions {
  /** Tools whose effects must have approvals whatever the export's `approvalTools` says. */
  requireApproval?: readonly string[];
}

export interface StatementCheck {
  requestId: string;
  /** What the run recorded for the request (`pending` for one still open in the export). */
  recorded: RunExport['approvals'][number]['decision'] | 'pending';
  by: string;
  decision: SignedDecision['statement']['decision'];
  ok: boolean;
  /** Why it failed; absent when ok. */
  reason?: string;
  /** Whether the signed digest was compared with the call it approves (the effect that ran, or the pending call). */
  digestChecked: boolean;
}

/** One effect of the ledger, judged: whether it needed an approval, and whether it had one that holds. */
export interface EffectCheck {
  callId: string;
  tool: string;
  /** Its tool needs approval (the export's `approvalTools` or the auditor's `requireApproval`), or an approval record names it. */
  needsApproval: boolean;
  ok: boolean;
  /** Why it failed; absent when ok. */
  reason?: string;
  /** The approved request it ran under. */
  requestId?: string;
  /** Who signed that approval (verified statements only). */
  approvedBy?: string[];
  /** Approved without signed statements in a run that predates signing (accepted unversioned exports only). */
  unsigned?: boolean;
  /** It went out on a person's decision about these values, which no trusted source vouched for. */
  onPersonsWord?: string[];
}

export interface RecordProblem {
  requestId: string;
  recorded: string;
  reason: string;
}

/** What verifyExport found: each effect, each signed statement checked against the directory, and any problem with the record. */
export interface VerifyReport {
  runId: string;
  ok: boolean;
  /** True when the run's decisions had to be signed (every run with a rule set, guardVersion 2 in older exports, or any signed record). */
  signedRun: boolean;
  /** What the export lacks for its rule set, or the auditor's minimum it falls short of. */
  exportProblems: string[];
  /** Every effect of the ledger, in order. */
  effects: EffectCheck[];
  statements: StatementCheck[];
  /** Decisions that should carry signed statements and do not, or whose signers disagree with the record. */
  problems: RecordProblem[];
  /** Decided records without statements in a run that predates signing: shown, not failed. */
  unsigned: Array<{ requestId: string; recorded: string; by: string }>;
}

type Approval = RunExport['approvals'][number];
type Effect = RunExport['effects'][number];
/** The call a signature is checked against: the effect that ran, or the call still pending. */
interface Bound {
  call: { tool: string; args: unknown; subject?: string | undefined };
  display: Record<string, string> | undefined;
  what: string;
}

/** Checks an exported run offline: every effect needing approval has a signed approval of exactly that call, every signed statement verifies under its signer's directory key and is bound to this run, request and recorded decision; no Temporal, worker or private key needed. */
export function verifyExport(record: RunExport, directory: ApproverDirectory, options: VerifyOptions = {}): VerifyReport {
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
    const effect = record.effects.find((e) => e.callId === a.callId);
    const bound = effect ? ranUnder(effect, a) : undefined;
    for (const s of signed) statements.push(checkStatement(record, a.requestId, a.decision, expected, s, directory, bound));
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
  if (pending) {
    const bound: Bound = { call: pending.call, display: pending.display, what: `the pending ${pending.call.tool} call` };
    for (const s of pending.collected) statements.push(checkStatement(record, pending.requestId, 'pending', 'approve', s, directory, bound));
  }

  const exportProblems = generationProblems(record, options);
  const effects = checkEffects(record, directory, options, signedRun);
  const ok = exportProblems.length === 0 && problems.length === 0 && statements.every((s) => s.ok) && effects.every((e) => e.ok);
  return { runId: record.runId, ok, signedRun, exportProblems, effects, statements, problems, unsigned };
}

/**
 * Every effect of the ledger, whatever the approvals say: one of a tool that needs approval, or
 * one an approval record names, must have run under exactly one approved record for its call
 * id, carrying statements that all verify and sign this very call and the lines shown with it.
 */
function checkEffects(record: RunExport, directory: ApproverDirectory, options: VerifyOptions, signedRun: boolean): EffectCheck[] {
  const required = new Set([...(record.approvalTools ?? []), ...(options.requireApproval ?? [])]);
  const count = (values: string[], v: string) => values.filter((x) => x === v).length;
  const callIds = record.effects.map((e) => e.callId);
  const requestIds = record.approvals.map((a) => a.requestId);

  return record.effects.map((e): EffectCheck => {
    const records = record.approvals.filter((a) => a.callId === e.callId);
    // Values a person decided on: the ledger's mark, and the card's signed "against:" lines (so
    // an export whose mark was stripped still shows them).
    const shown = records.filter((a) => a.decision === 'approved').flatMap((a) => againstValues(a.display));
    const onPersonsWord = [...new Set([...(e.onPersonsWord ?? []), ...shown])];
    const needsApproval = required.has(e.tool) || records.length > 0 || onPersonsWord.length > 0;
    const base = { callId: e.callId, tool: e.tool, needsApproval, ...(onPersonsWord.length ? { onPersonsWord } : {}) };
    const fail = (reason: string, more: Partial<EffectCheck> = {}): EffectCheck => ({ ...base, ...more, ok: false, reason });
    if (!needsApproval) return { ...base, ok: true };
    if (count(callIds, e.callId) > 1) return fail(`call id ${e.callId} appears ${count(callIds, e.callId)} times in the effects ledger`);

    const approved = records.filter((a) => a.decision === 'approved');
    if (approved.length === 0) {
      if (records.length === 0 && onPersonsWord.length)
        return fail(
          `went out on a person's decision about ${onPersonsWord.map((v) => JSON.stringify(v)).join(', ')}, but no approval record names call ${e.callId}`,
        );
      if (records.length === 0) return fail(`${e.tool} needs approval, but no approval record names call ${e.callId}`);
      return fail(`its approval request was ${records.map((a) => a.decision).join(', ')}, never approved`);
    }
    const [a] = approved;
    if (!a || approved.length > 1) return fail(`${approved.length} approved records name call ${e.callId}`);
    const more = { requestId: a.requestId };
    // A copied record under another call id would carry the same signed request id.
    if (count(requestIds, a.requestId) > 1) return fail(`request ${a.requestId} is recorded ${count(requestIds, a.requestId)} times`, more);

    const signed = a.signed ?? [];
    if (signed.length === 0) {
      if (signedRun) return fail(`approved by ${a.by} without any signed statement`, more);
      return { ...base, ...more, ok: true, unsigned: true, approvedBy: a.by.split(',').map((b) => b.trim()) };
    }
    // The person must have been shown each value they decided on, on the card they signed.
    const lines = againstLines(a.display);
    const unshown = (e.onPersonsWord ?? []).filter((v) => !lines.some((line) => line.startsWith(JSON.stringify(v).slice(0, 80))));
    if (unshown.length)
      return fail(`its approvers were not shown ${unshown.map((v) => JSON.stringify(v)).join(', ')}, which no trusted source vouched for`, more);
    const bound = ranUnder(e, a);
    for (const s of signed) {
      const check = checkStatement(record, a.requestId, a.decision, 'approve', s, directory, bound);
      if (!check.ok) return fail(`${s.statement.by}'s approval does not hold: ${check.reason ?? 'unknown reason'}`, more);
    }
    return { ...base, ...more, ok: true, approvedBy: signed.map((s) => s.statement.by) };
  });
}

/** The lines a card set apart as unvouched values (controller/display.ts: `"value", from ...`, the value cut at 80 characters). */
function againstLines(display: Record<string, string> | undefined): string[] {
  return Object.entries(display ?? {}).flatMap(([label, line]) => (label.startsWith('against: unvouched value') ? [line] : []));
}

/** The values those lines name, as far as the card shows them. */
function againstValues(display: Record<string, string> | undefined): string[] {
  return againstLines(display).flatMap((line) => {
    const quoted = /^("(?:[^"\\]|\\.)*")/.exec(line)?.[1];
    try {
      return quoted ? [String(JSON.parse(quoted))] : [];
    } catch {
      return [];
    }
  });
}

/** The effect as the call its approvers signed, with the lines they were shown beside it. */
function ranUnder(effect: Effect, approval: Approval): Bound {
  return { call: effect, display: approval.display, what: `the ${effect.tool} call that ran (${effect.callId})` };
}

function checkStatement(
  { runId, chain }: Pick<RunExport, 'runId' | 'chain'>,
  requestId: string,
  recorded: StatementCheck['recorded'],
  expected: 'approve' | 'deny' | undefined,
  signed: SignedDecision,
  directory: ApproverDirectory,
  bound: Bound | undefined,
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
  if (!bound) return result();
  const digest = approvalDigest(runId, requestId, bound.call, chain, bound.display);
  if (s.digest !== digest) return result(`the signed call (or the lines shown with it) is not ${bound.what}`, true);
  return result(undefined, true);
}

/** An amendment on record must be the signed word of a directory key, for this run and request. */
function amendmentProblem(record: RunExport, approval: Approval, directory: ApproverDirectory): string | undefined {
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
