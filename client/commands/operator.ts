// note and cancel: the operator talks to a running run.
import { addNoteUpdate, cancelSignal, CancelInput, NoteInput } from '../../workflows/messages.js';
import { CliError, formatZodError, UsageError } from '../errors.js';
import { runHandle, withWorkerDeadline } from '../runs.js';
import { identity, type CommandRun } from './types.js';

export const note: CommandRun = async (ctx, args, flags) => {
  const runId = args.run ?? '';
  const parsed = NoteInput.safeParse({ by: identity(flags, ctx.env), text: args.text ?? '' });
  if (!parsed.success) throw new UsageError(formatZodError(parsed.error));
  const client = await ctx.client();
  await withWorkerDeadline(client, runId, 'note', () => runHandle(client, runId).executeUpdate(addNoteUpdate, { args: [parsed.data] }));
  if (ctx.json) ctx.out(JSON.stringify({ runId, accepted: true, by: parsed.data.by }));
  else ctx.out(`note added to run ${runId} by ${parsed.data.by}`);
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
