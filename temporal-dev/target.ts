import { loadClientConfigProfile, loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { startDevServer, type DevServerOptions } from './dev-server.js';

/** The Temporal server a process talks to, whether we started it or the user pointed us at it. */
export interface TemporalTarget {
  connectionOptions: NativeConnectionOptions;
  namespace: string;
  address: string;
  uiUrl: string | undefined;
  /** True when this process started a dev server (and will stop it). */
  startedHere: boolean;
  stop(): Promise<void>;
}

/**
 * An existing server wins: TEMPORAL_ADDRESS, or a profile from TEMPORAL_PROFILE / the
 * envconfig file that names an address. That is how a user moves from the dev server to a
 * cluster or Temporal Cloud without touching code.
 */
export function configuredServer(): Omit<TemporalTarget, 'stop' | 'startedHere' | 'uiUrl'> | undefined {
  const profile = loadClientConfigProfile();
  if (!process.env.TEMPORAL_ADDRESS && !profile.address) return undefined;
  const { connectionOptions, namespace } = loadClientConnectConfig();
  return {
    connectionOptions,
    namespace: namespace ?? 'default',
    address: connectionOptions.address ?? profile.address ?? '',
  };
}

export async function useTemporal(options: Omit<DevServerOptions, 'log'> & { log: DevServerOptions['log'] }): Promise<TemporalTarget> {
  const existing = configuredServer();
  if (existing) {
    options.log(`using the configured Temporal server at ${existing.address} (namespace ${existing.namespace}); nothing started`);
    return { ...existing, uiUrl: process.env.TEMPORAL_UI_URL, startedHere: false, stop: async () => {} };
  }
  const server = await startDevServer(options);
  return {
    connectionOptions: { address: server.address },
    namespace: server.namespace,
    address: server.address,
    uiUrl: server.uiUrl,
    startedHere: true,
    stop: server.stop,
  };
}
