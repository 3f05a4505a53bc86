// approve / deny: the operator names the request they mean; the CLI checks it is the one
// pending and signs, with the operator's own key, a statement bound to this run, this request
// and the digest of the exact call it was shown, so a decision can never land on different
// arguments. Whether the signer may decide (directory, roles, quorum, starter) is the
// workflow's validator's judgement, not the CLI's.
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { approveUpdate, denyUpdate, type RunView } from '../../workflows/messages.js';
import { CliError, describeError, UsageError } from '../errors.js';
import { compact } from '../format.js';
import { fetchView, runHandle, withWorkerDeadline } from '../runs.js';
import { readKeyFile, signDecision } from '../sign.js';
import type { CommandRun } from './types.js';

/** How long to wait for a just-raised request's approver directory before sending anyway. */
const DIRECTORY_WAIT_MS = 5_000;

function decisionCommand(kind: 'approve' | 'deny'): CommandRun {
  return async (ctx, args, flags) => {
    const runId = args.run ?? '';
    const requestId = args.request ?? '';
    const keyPath = flags.str('key');
    if (!keyPath) throw new UsageError(`${kind} needs --key <file>: decisions are signed with your key (agent keys generate makes one)`);
    const comment = flags.str('comment') ?? '';
    if (comment.length > 500) throw new UsageError('--comment may be at most 500 characters');
    const validFor = flags.int('valid-for', 1, 24 * 3_600);
    // The key is read before anything connects: a bad key file fails here, on this machine.
    const key = readKeyFile(keyPath);

    const client = await ctx.client();
    const awaiting = await pendingRequest(await fetchView(client, runId), runId, requestId, kind, () => fetchView(client, runId));
    const signed = signDecision(key, runId, awaiting, kind, comment, validFor !== undefined ? { validForMs: validFor * 1_000 } : {});
    let ack;
    try {
      ack = await withWorkerDeadline(client, runId, kind, () =>
        runHandle(client, runId).executeUpdate(kind === 'approve' ? approveUpdate : denyUpdate, { args: [signed] }),
      );
    } catch (err) {
      // The validator's words are the useful part: `bob may not decide ...`, `already decided`.
      if (err instanceof WorkflowUpdateFailedError) throw new CliError(`${kind} rejected: ${describeError(err).replace(/^rejected: /, '')}`);
      throw err;
    }
    if (ctx.json) {
      ctx.out(
        JSON.stringify({
          runId,
          ...ack,
          tool: awaiting.tool,
          args: awaiting.args,
          ...(awaiting.subject ? { subject: awaiting.subject } : {}),
          by: key.id,
          digest: awaiting.digest,
          expiresAt: signed.statement.expiresAt,
        }),
      );
      return;
    }
    const about = awaiting.subject ? ` on ${awaiting.subject}` : '';
    ctx.out(`${ack.decision} ${awaiting.tool} ${compact(awaiting.args)}${about} as ${key.id} (request ${ack.requestId}): ${ack.outcome}`);
  };
}

/** The request to decide, once it is the pending one and (if just raised) its directory has loaded. */
async function pendingRequest(
  first: RunView,
  runId: string,
  requestId: string,
  kind: 'approve' | 'deny',
  refetch: () => Promise<RunView>,
): Promise<NonNullable<RunView['awaiting']>> {
  let view = first;
  const giveUpAt = Date.now() + DIRECTORY_WAIT_MS;
  for (;;) {
    const st = view.state;
    if (st.terminal) throw new CliError(`run ${runId} has already ended (${st.terminal.class}/${st.terminal.reason}); nothing to ${kind}`);
    const awaiting = view.awaiting;
    if (!awaiting) throw new CliError(`run ${runId} has no pending approval (phase ${st.phase})`);
    if (awaiting.requestId !== requestId) throw new CliError(`request ${requestId} is not pending on run ${runId} (the pending request is ${awaiting.requestId})`);
    if (!awaiting.signed) throw new CliError(`run ${runId} predates signed approvals; its request ${requestId} cannot be decided with a key (cancel the run instead)`);
    // Until the worker's directory is loaded nobody is eligible and the run would refuse any
    // decision as "still loading": a request raised a moment ago gets a few seconds.
    if (awaiting.eligible.length > 0 || Date.now() >= giveUpAt) return awaiting;
    await sleep(200);
    view = await refetch();
  }
}

export const approve = decisionCommand('approve');
export const deny = decisionCommand('deny');
