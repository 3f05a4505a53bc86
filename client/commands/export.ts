// export: the run record as JSON in the published RunExport schema (client/export-schema.ts),
// validated before it is printed, so what leaves here always matches the schema. Its `execution`
// says what the server knew (a terminated run says so). The record is the run's own state, which
// only a worker can read: with no worker polling the run's queue the export fails with one line
// naming the queue instead of waiting for an answer that cannot come, or printing half a record.
import type { CommandRun } from './types.js';

export const exportRun: CommandRun = async (ctx, args) => {
  const record = await (await ctx.agent()).export(args.run ?? '');
  ctx.out(JSON.stringify(record, null, 2));
};
