// console: the operators' web console from the installed package, on loopback, against any
// Temporal server (--address / --namespace, else the same settings as every other command:
// TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS or TEMPORAL_PROFILE). It never
// holds a private key: approvers sign in their browser. Ctrl-C or SIGTERM stops it (exit 0).
import { CliError, UsageError } from '../usage.js';
import type { CommandRun } from './types.js';

export const consoleCommand: CommandRun = async (ctx, _args, flags) => {
  // The console's code is loaded only by this command: the hono server is no other command's cost.
  const { consolePort, DEFAULT_CONSOLE_PORT, serveConsole } = await import('../../console/serve.js');
  const portText = flags.str('port') ?? ctx.env.AGENT_CONSOLE_PORT?.trim();
  const port = portText ? consolePort(portText, flags.str('port') !== undefined ? '--port' : 'AGENT_CONSOLE_PORT', true) : DEFAULT_CONSOLE_PORT;
  if (typeof port !== 'number') throw new UsageError(port.error);
  // The connection reads the environment when it is made: the flags win over it.
  const address = flags.str('address')?.trim();
  const namespace = flags.str('namespace')?.trim();
  if (address) process.env.TEMPORAL_ADDRESS = address;
  if (namespace) process.env.TEMPORAL_NAMESPACE = namespace;
  const agent = await ctx.agent();
  const named = flags
    .str('domains')
    ?.split(',')
    .map((d) => d.trim())
    .filter(Boolean);
  const served = await serveConsole(agent, { port, domains: named ?? ctx.domains?.map((d) => d.name) ?? [] });
  if (served) throw new CliError(served.error);
};
