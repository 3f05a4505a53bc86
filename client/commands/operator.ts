// note and cancel: the operator talks to a running run. A note signed with the operator's key is
// trusted operator text; an unsigned one still reaches the model, but only as untrusted text.
import { addNoteUpdate, cancelSignal, CancelInput, NoteInput } from '../../workflows/messages.js';
import { CliError, formatZodError, UsageError } from '../errors.js';
import { runHandle, withWorkerDeadline } from '../runs.js';
import { readKeyFile, signNote } from '../sign.js';
import { identity, type CommandRun } from './types.js';

export const note: CommandRun = async (ctx, args, flags) => {
  const runId = args.run ?? '';
  const text = args.text ?? '';
  const keyPath = flags.str('key');
  if (keyPath && flags.str('as') !== undefined) throw new UsageError('note: give --key or --as, not both (a signed note is by whoever the key file names)');
  // With a key the note is signed and, if the run's directory knows the key, trusted operator
  // text; without one it is recorded, but the model reads it as untrusted text.
  const input = keyPath ? signNote(readKeyFile(keyPath), runId, text) : { by: identity(flags, ctx.env), text };
  const parsed = NoteInput.safeParse(input);
  if (!parsed.success) throw new UsageError(formatZodError(parsed.error));
  const by = 'statement' in parsed.data ? parsed.data.statement.by : parsed.data.by;
  const client = await ctx.client();
  const ack = await withWorkerDeadline(client, runId, 'note', () => runHandle(client, runId).executeUpdate(addNoteUpdate, { args: [parsed.data] }));
  const signed = keyPath !== undefined;
  if (ctx.json) {
    ctx.out(JSON.stringify({ runId, accepted: ack.accepted, trusted: ack.trusted, signed, by }));
    return;
  }
  const how = ack.trusted
    ? 'signed and trusted: the model reads it as an operator note'
    : signed
      ? "signed, but not trusted (the worker's approver directory does not vouch for this key): the model reads it as untrusted text"
      : 'unsigned: the model reads it as untrusted text; sign it with --key to make it trusted';
  ctx.out(`note added to run ${runId} by ${by} (${how})`);
};

export const cancel: CommandRun = async (ctx, args, flags) => {
  const runId = args.run ?? '';
  const parsed = CancelInput.safeParse({ by: identity(flags, ctx.env), reason: flags.str('reason') ?? '' });
  if (!parsed.success) throw new UsageError(formatZodError(parsed.error));
  const handle = runHandle(await ctx.client(), runId);
  const described = await handle.describe();
  if (described.status.name !== 'RUNNING') throw new CliError(`run ${runId} is not running (${described.status.name.toLowerCase()})`);
  await handle.signal(cancelSignal, parsed.data);
  if (ctx.json) ctx.out(JSON.stringify({ runId, cancelRequested: true, by: parsed.data.by, reason: parsed.data.reason }));
  else ctx.out(`cancel requested for run ${runId} by ${parsed.data.by}`);
};
