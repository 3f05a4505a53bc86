// What AgentClient is given, checked where it is given. An option it does not take is refused by
// name, not ignored: a JavaScript caller's misspelt `taskQueues` would otherwise leave the team's
// other queues unserved without a word. And which task queues are the engine's is settled once,
// from the options, the environment and the domains, since lists, the inbox and signing all ask.
import { taskQueueFor } from '../worker/connection.js';
import { refusedOption, type OptionNames } from '../workflows/option-names.js';
import type { AgentClientConnectOptions, AgentClientOptions } from './agent-client-types.js';
import { ClientOptionError } from './agent-errors.js';

/** What `new AgentClient` takes (the compiler holds these to the options types): anything else is refused by name. */
const CLIENT_OPTIONS: OptionNames<AgentClientOptions> = {
  client: true,
  taskQueue: true,
  taskQueues: true,
  domains: true,
  queryTimeoutMs: true,
  updateTimeoutMs: true,
};
const CONNECT_OPTIONS: OptionNames<AgentClientConnectOptions> = {
  taskQueue: true,
  taskQueues: true,
  domains: true,
  queryTimeoutMs: true,
  updateTimeoutMs: true,
  dataConverter: true,
  plugins: true,
  env: true,
};
const KNOWN_OPTIONS = { AgentClient: CLIENT_OPTIONS, 'AgentClient.connect': CONNECT_OPTIONS };

/** Refuses the first option `where` does not take, by name: ClientOptionError. */
export function refuseUnknownOptions(where: keyof typeof KNOWN_OPTIONS, options: object): void {
  const refused = refusedOption(where, options, KNOWN_OPTIONS[where]);
  if (refused) throw new ClientOptionError(refused);
}

/** The task queues whose runs are this engine's: where it starts runs, the others named, each domain's own (AgentClient.servedQueues). */
export function servedQueuesOf(options: AgentClientOptions): string[] {
  const named = (options.taskQueues ?? []).map((q) => String(q).trim()).filter((q) => q !== '');
  const domainQueues = (options.domains ?? []).map((d) => taskQueueFor([d], {}));
  return [...new Set([options.taskQueue, ...named, ...domainQueues])];
}

/** AGENT_TASK_QUEUES: the team's other queues, comma-separated (blanks ignored). */
export function queuesFromEnv(env: NodeJS.ProcessEnv): string[] {
  return (env.AGENT_TASK_QUEUES ?? '')
    .split(',')
    .map((q) => q.trim())
    .filter((q) => q !== '');
}
