// export: the run record as JSON in the published RunExport schema (client/export-schema.ts),
// validated before it is printed, so what leaves here always matches the schema.
import type { CommandRun } from './types.js';

export const exportRun: CommandRun = async (ctx, args) => {
  const record = await (await ctx.agent()).export(args.run ?? '');
  ctx.out(JSON.stringify(record, null, 2));
};
