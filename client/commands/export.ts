import { toRunExport } from '../export-schema.js';
import { fetchView } from '../runs.js';
import type { CommandRun } from './types.js';

export const exportRun: CommandRun = async (ctx, args) => {
  const view = await fetchView(await ctx.client(), args.run ?? '');
  // Validated before printing: what leaves here always matches the published schema.
  ctx.out(JSON.stringify(toRunExport(view), null, 2));
};
