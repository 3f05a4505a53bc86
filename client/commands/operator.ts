// note and cancel: the operator talks to a running run through AgentClient. A note signed with
// the operator's key is trusted operator text; an unsigned one still reaches the model, but
// only as untrusted text.
import { cancelInput, noteInput } from '../message-inputs.js';
import { readKeyFile } from '../sign.js';
import { UsageError } from '../usage.js';
import { identity, type CommandRun } from './types.js';

export const note: CommandRun = async (ctx, args, flags) => {
  const runId = args.run ?? '';
  const text = args.text ?? '';
  const keyPath = flags.str('key');
  if (keyPath && flags.str('as') !== undefined) throw new UsageError('note: give --key or --as, not both (a signed note is by whoever the key file names)');
  // With a key the note is signed and, if the run's directory knows the key, trusted operator
  // text; without one it is recorded, but the model reads it as untrusted text.
  const options = keyPath ? { key: readKeyFile(keyPath) } : { by: identity(flags, ctx.env) };
  // Checked before anything connects: a note the run would refuse is a usage error here.
  noteInput(runId, text, options);
  const result = await (await ctx.agent()).note(runId, text, options);
  if (ctx.json) {
    ctx.out(JSON.stringify(result));
    return;
  }
  const how = result.trusted
    ? 'signed and trusted: the model reads it as an operator note'
    : result.signed
      ? "signed, but not trusted (the worker's approver directory does not vouch for this key): the model reads it as untrusted text"
      : 'unsigned: the model reads it as untrusted text; sign it with --key to make it trusted';
  ctx.out(`note added to run ${runId} by ${result.by} (${how})`);
};

export const cancel: CommandRun = async (ctx, args, flags) => {
  const runId = args.run ?? '';
  const options = { by: identity(flags, ctx.env), reason: flags.str('reason') ?? '' };
  cancelInput(options); // checked before anything connects
  const result = await (await ctx.agent()).cancel(runId, options);
  if (ctx.json) ctx.out(JSON.stringify(result));
  else ctx.out(`cancel requested for run ${runId} by ${result.by}`);
};
