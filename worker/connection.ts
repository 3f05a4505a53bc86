// How every process of ours finds Temporal: TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE /
// TEMPORAL_API_KEY / TLS settings or a TEMPORAL_PROFILE from the envconfig file. The default is
// the local dev server that `npm run dev:server` starts. And which task queue: one named after
// the domains served, so two workers of different workflows never share one by default.
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';

export const DEFAULT_ADDRESS = '127.0.0.1:7233';
/** Where callers that know no domains (a client that reads runs but starts none) default to. */
const NO_DOMAINS_TASK_QUEUE = 'agent-runs';

/**
 * AGENT_TASK_QUEUE, else `agent-runs`: only for callers that know no domains. Workers and
 * clients given domains use taskQueueFor(domains) instead.
 */
export const TASK_QUEUE = process.env.AGENT_TASK_QUEUE ?? NO_DOMAINS_TASK_QUEUE;

/**
 * The task queue of a worker that serves these domains, and of a client that starts their runs:
 * AGENT_TASK_QUEUE when set, else `agents-<the domain names, sorted, joined by '-'>`, e.g.
 * `agents-incidents-payments-synthetic`. A worker of other workflows (your own domain beside
 * `npm run dev`) then polls a queue of its own: one queue shared by two workflow bundles hands
 * each one the other's runs, which fail as nondeterministic.
 */
export function taskQueueFor(domains: readonly (string | { name: string })[], env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.AGENT_TASK_QUEUE?.trim();
  if (explicit) return explicit;
  const names = [...new Set(domains.map((d) => (typeof d === 'string' ? d : d.name)))].sort();
  if (names.length === 0) return NO_DOMAINS_TASK_QUEUE;
  return `agents-${names.join('-')}`;
}

export function connectConfig(env: NodeJS.ProcessEnv = process.env): { connectionOptions: NativeConnectionOptions; namespace: string } {
  // envconfig reads process.env unless given the variables to read instead.
  const overrideEnvVars = env === process.env ? undefined : definedOnly(env);
  const { connectionOptions, namespace } = loadClientConnectConfig(overrideEnvVars ? { overrideEnvVars } : {});
  return {
    connectionOptions: { ...connectionOptions, address: connectionOptions.address ?? DEFAULT_ADDRESS },
    namespace: namespace ?? 'default',
  };
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}
