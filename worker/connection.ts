// How every process of ours finds Temporal: TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE /
// TEMPORAL_API_KEY / TLS settings or a TEMPORAL_PROFILE from the envconfig file. The default is
// the local dev server that `npm run dev:server` starts.
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';

export const DEFAULT_ADDRESS = '127.0.0.1:7233';
export const TASK_QUEUE = process.env.AGENT_TASK_QUEUE ?? 'agent-runs';

export function connectConfig(): { connectionOptions: NativeConnectionOptions; namespace: string } {
  const { connectionOptions, namespace } = loadClientConnectConfig();
  return {
    connectionOptions: { ...connectionOptions, address: connectionOptions.address ?? DEFAULT_ADDRESS },
    namespace: namespace ?? 'default',
  };
}
