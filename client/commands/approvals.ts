// approve / deny: the operator names the request they mean; AgentClient checks it is the one
// pending and signs, with the operator's own key, a statement bound to this run, this request
// and the digest of the exact call it was shown, so a decision can never land on different
// arguments. The request is named as status and watch print it, `<request id>#<digest prefix>`,
// which pins it to the call the operator read: request ids are predictable, and a run reset or
// started again under the same workflow id can hold another call under the same id by the time
// the operator types approve, so AgentClient signs nothing unless the pending call's digest
// starts with that prefix. A bare request id (scripts) still works, and pins nothing. Whether
// the signer may decide (directory, roles, quorum, starter) is the workflow's validator's
// judgement, not the CLI's.
import { compact } from '../format.js';
import { readKeyFile } from '../sign.js';
import { UsageError } from '../usage.js';
import type { CommandRun } from './types.js';

function decisionCommand(kind: 'approve' | 'deny'): CommandRun {
  return async (ctx, args, flags) => {
    const runId = args.run ?? '';
    const requestId = args.request ?? '';
    const keyPath = flags.str('key');
    if (!keyPath) throw new UsageError(`${kind} needs --key <file>: decisions are signed with your key (${ctx.program} keys generate makes one)`);
    const comment = flags.str('comment') ?? '';
    if (comment.length > 500) throw new UsageError('--comment may be at most 500 characters');
    const validFor = flags.int('valid-for', 1, 24 * 3_600);
    // The key is read before anything connects: a bad key file fails here, on this machine.
    const key = readKeyFile(keyPath);

    const agent = await ctx.agent();
    const options = { comment, ...(validFor !== undefined ? { validForMs: validFor * 1_000 } : {}) };
    const result = kind === 'approve' ? await agent.approve(runId, requestId, key, options) : await agent.deny(runId, requestId, key, options);
    if (ctx.json) {
      ctx.out(JSON.stringify(result));
      return;
    }
    const about = result.subject ? ` on ${result.subject}` : '';
    ctx.out(`${result.decision} ${result.tool} ${compact(result.args)}${about} as ${result.by} (request ${result.requestId}): ${result.outcome}`);
  };
}

export const approve = decisionCommand('approve');
export const deny = decisionCommand('deny');

/** amend: the same call with other arguments, signed; the run raises a new request for it. */
export const amend: CommandRun = async (ctx, args, flags) => {
  const keyPath = flags.str('key');
  if (!keyPath) throw new UsageError(`amend needs --key <file>: amendments are signed with your key (${ctx.program} keys generate makes one)`);
  const raw = flags.str('args');
  if (!raw) throw new UsageError('amend needs --args <JSON>: the arguments the call should have instead');
  let amended: unknown;
  try {
    amended = JSON.parse(raw);
  } catch {
    throw new UsageError('--args is not JSON');
  }
  if (!amended || typeof amended !== 'object' || Array.isArray(amended)) throw new UsageError('--args must be a JSON object');
  const comment = flags.str('comment') ?? '';
  if (comment.length > 500) throw new UsageError('--comment may be at most 500 characters');
  const validFor = flags.int('valid-for', 1, 24 * 3_600);
  const key = readKeyFile(keyPath);
  const agent = await ctx.agent();
  const result = await agent.amend(args.run ?? '', args.request ?? '', amended as Record<string, unknown>, key, {
    comment,
    ...(validFor !== undefined ? { validForMs: validFor * 1_000 } : {}),
  });
  if (ctx.json) {
    ctx.out(JSON.stringify(result));
    return;
  }
  ctx.out(`${result.decision} ${result.tool} to ${compact(result.args)} as ${result.by} (request ${result.requestId}): ${result.outcome}`);
};
