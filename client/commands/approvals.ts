// approve / deny: the operator names the request they mean; the CLI checks it is the one
// pending and sends the digest of the exact call it was shown, so a decision can never land
// on different arguments. Authority and double decisions are the workflow's validators' job.
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApprovalInput, approveUpdate, denyUpdate } from '../../workflows/messages.js';
import { CliError, describeError, formatZodError, UsageError } from '../errors.js';
import { compact } from '../format.js';
import { fetchView, runHandle, withWorkerDeadline } from '../runs.js';
import type { CommandRun } from './types.js';

function decisionCommand(kind: 'approve' | 'deny'): CommandRun {
  return async (ctx, args, flags) => {
    const runId = args.run ?? '';
    const requestId = args.request ?? '';
    const by = flags.str('as');
    if (!by) throw new UsageError(`${kind} needs --as <identity>`);
    const comment = flags.str('comment') ?? '';
    const shape = ApprovalInput.safeParse({ requestId, by, digest: 'x', comment });
    if (!shape.success) throw new UsageError(formatZodError(shape.error));

    const client = await ctx.client();
    const view = await fetchView(client, runId);
    const st = view.state;
    if (st.terminal) throw new CliError(`run ${runId} has already ended (${st.terminal.class}/${st.terminal.reason}); nothing to ${kind}`);
    const awaiting = view.awaiting;
    if (!awaiting) throw new CliError(`run ${runId} has no pending approval (phase ${st.phase})`);
    if (awaiting.requestId !== requestId) throw new CliError(`request ${requestId} is not pending on run ${runId} (the pending request is ${awaiting.requestId})`);

    const input = ApprovalInput.parse({ requestId, by, digest: awaiting.digest, comment });
    let ack;
    try {
      ack = await withWorkerDeadline(client, runId, kind, () =>
      runHandle(client, runId).executeUpdate(kind === 'approve' ? approveUpdate : denyUpdate, { args: [input] }),
    );
    } catch (err) {
      // The validator's words are the useful part: `bob may not approve ...`, `already decided`.
      if (err instanceof WorkflowUpdateFailedError) throw new CliError(`${kind} rejected: ${describeError(err).replace(/^rejected: /, '')}`);
      throw err;
    }
    if (ctx.json) {
      ctx.out(JSON.stringify({ runId, ...ack, tool: awaiting.tool, args: awaiting.args, by }));
      return;
    }
    ctx.out(`${ack.decision} ${awaiting.tool} ${compact(awaiting.args)} as ${by} (request ${ack.requestId}): ${ack.outcome}`);
  };
}

export const approve = decisionCommand('approve');
export const deny = decisionCommand('deny');
