// alerts: the alert receiver as a process of its own. Alertmanager's webhook posts here; each alert
// group starts one run (client/alerts/receiver.ts). The mapping from an alert group to a domain
// and a case is the team's: a module whose `mapAlertGroup` export is an AlertMapping. The secret
// comes from the environment (AGENT_ALERTS_TOKEN or AGENT_ALERTS_BASIC), never from a flag.
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { receiverAuthFromEnv } from '../alerts/auth.js';
import { createAlertReceiver, type AlertMapping } from '../alerts/receiver.js';
import { UsageError } from '../usage.js';
import type { CommandRun } from './types.js';

export const alerts: CommandRun = async (ctx, _args, flags) => {
  const auth = receiverAuthFromEnv(ctx.env);
  if (typeof auth === 'string') throw new UsageError(auth);
  const mappingFile = flags.str('mapping');
  if (!mappingFile) throw new UsageError('alerts: --mapping FILE is required (a module exporting mapAlertGroup)');
  const map = await loadMapping(mappingFile);
  const port = flags.int('port', 0, 65_535) ?? 9095;
  const host = flags.str('host') ?? '127.0.0.1';

  const agent = await ctx.agent();
  const receiver = createAlertReceiver({ agent, auth, map, log: (line) => ctx.err(`alerts: ${line}`) });
  const { url } = await receiver.listen(port, host);
  ctx.out(
    ctx.json ? JSON.stringify({ listening: url, taskQueue: agent.taskQueue }) : `alert receiver listening on ${url} (runs on task queue ${agent.taskQueue})`,
  );

  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await receiver.close();
  return 0;
};

async function loadMapping(file: string): Promise<AlertMapping> {
  const url = pathToFileURL(isAbsolute(file) ? file : resolve(process.cwd(), file)).href;
  let module: Record<string, unknown>;
  try {
    module = (await import(url)) as Record<string, unknown>;
  } catch (err) {
    throw new UsageError(`alerts: cannot load --mapping ${file}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  const map = module.mapAlertGroup;
  if (typeof map !== 'function') throw new UsageError(`alerts: ${file} has no mapAlertGroup function export`);
  return map as AlertMapping;
}
