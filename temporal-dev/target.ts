// Which Temporal server a process of ours talks to: the one the environment names, else the
// dev server already running on our database file, else one started here.
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { loadClientConfigProfile, loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { DevDatabaseHeldError, lockHolder, type DbLockInfo } from './db-lock.js';
import { startDevServer, type DevServerOptions } from './dev-server.js';
import type { Log } from './log.js';

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
  // `npm run dev` (say) already serves this database: use its server, never start a second one on it.
  const holder = options.dbFile ? lockHolder(options.dbFile) : undefined;
  if (holder && options.dbFile) return useHolder(options.dbFile, holder, options.log);
  let server;
  try {
    server = await startDevServer(options);
  } catch (err) {
    // Someone took the lock between our look and our start.
    if (err instanceof DevDatabaseHeldError) return useHolder(err.dbFile, err.holder, options.log);
    throw err;
  }
  return {
    connectionOptions: { address: server.address },
    namespace: server.namespace,
    address: server.address,
    uiUrl: server.uiUrl,
    startedHere: true,
    stop: server.stop,
  };
}

/** How long to wait for the holder's server to answer (it may be starting right now). */
const HOLDER_WAIT_MS = 60_000;

async function useHolder(dbFile: string, holder: DbLockInfo, log: Log): Promise<TemporalTarget> {
  log(
    `${dbFile} is served by the dev server at ${holder.address} (started by pid ${holder.pid}); using it instead of starting a second server on the same file`,
  );
  const deadline = Date.now() + HOLDER_WAIT_MS;
  for (;;) {
    if (await answers(holder.address)) break;
    if (lockHolder(dbFile)?.pid !== holder.pid) throw new DevDatabaseHeldError(dbFile, holder, ', which stopped while we waited for it');
    if (Date.now() >= deadline) throw new DevDatabaseHeldError(dbFile, holder, `, whose server did not answer within ${HOLDER_WAIT_MS / 1000}s`);
    await sleep(250);
  }
  return {
    connectionOptions: { address: holder.address },
    namespace: holder.namespace,
    address: holder.address,
    uiUrl: holder.uiUrl,
    startedHere: false,
    stop: async () => {},
  };
}

/** Whether a Temporal frontend answers at `address` (one getSystemInfo, a 1 s connect timeout). */
export async function answers(address: string): Promise<boolean> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: 1_000 });
    try {
      await connection.workflowService.getSystemInfo({});
      return true;
    } finally {
      await connection.close();
    }
  } catch {
    return false;
  }
}
