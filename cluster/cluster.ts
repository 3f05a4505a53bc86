// A real multi-service Temporal cluster on this machine, for tests and for `npm run cluster`:
// PostgreSQL, then the history, matching, frontend and worker services, each its own process on
// loopback, built from the pinned server release. Tests kill and restart single services through
// the handle this returns; everything is stopped by the pids this module started.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { binariesBuilt, ensureBinaries } from './build.js';
import { allocatePorts, frontendAddress, SERVICES, writeServerConfig, type ServiceName } from './config.js';
import { prepareNamespace } from './namespace.js';
import { initDataDir, postgresBin, startPostgres } from './postgres.js';
import { isRunning, killOnExit, stopProcess } from './processes.js';
import { setUpSchemas } from './schema.js';
import { startService } from './services.js';
import { readState, removeState, writeState, type ClusterState, type ProcessEntry } from './state.js';
import { scratchParent, serverBinary, TEMPORAL_SERVER_VERSION } from './paths.js';
import { quietLog, type Log } from '../temporal-dev/log.js';

export interface ClusterOptions {
  /** The cluster's folder; a fresh scratch folder (removed by stop()) when omitted. */
  dir?: string;
  namespace?: string;
  log?: Log;
  /**
   * Leave the processes running when this process exits (`npm run cluster -- start`). Off by
   * default: a test that dies takes its cluster with it.
   */
  outliveThisProcess?: boolean;
}

export interface Cluster {
  /** The frontend's gRPC address, for TEMPORAL_ADDRESS. */
  address: string;
  namespace: string;
  dir: string;
  /** The pid each service runs as now (it changes on restart). */
  pids(): Record<ServiceName, number>;
  /** SIGKILLs the service's process: a crash, not a shutdown. */
  kill(service: ServiceName): Promise<void>;
  /** Starts the service again (SIGKILLing it first if it still runs); resolves when it listens. */
  restart(service: ServiceName): Promise<void>;
  stop(): Promise<void>;
}

export class ClusterAlreadyRunningError extends Error {
  constructor(readonly state: ClusterState) {
    super(`a cluster already runs from ${state.dir} at ${state.address} (frontend pid ${state.services.frontend.pid}); stop it first`);
    this.name = 'ClusterAlreadyRunningError';
  }
}

/** The pids a state file names that still run the program they were started as. */
export function runningProcesses(state: ClusterState) {
  return [state.postgres, ...SERVICES.map((s) => state.services[s])].filter((p) => isRunning(p.pid, p.program));
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const log = options.log ?? quietLog;
  const namespace = options.namespace ?? 'default';
  if (!binariesBuilt()) await ensureBinaries(log);
  const scratch = options.dir === undefined;
  if (scratch) {
    mkdirSync(scratchParent, { recursive: true });
    await removeAbandonedScratch(log);
  }
  const dir = options.dir ?? mkdtempSync(join(scratchParent, 'cluster-'));
  mkdirSync(dir, { recursive: true });
  // mkdtemp makes it private; PostgreSQL, running as its own user, must reach its folder inside.
  if (scratch) chmodSync(dir, 0o755);
  const previous = readState(dir);
  if (previous && runningProcesses(previous).length > 0) throw new ClusterAlreadyRunningError(previous);

  postgresBin(); // fails early, with what to install, before anything is started
  const ports = await allocatePorts();
  const configFile = writeServerConfig(dir, ports);
  const started: ProcessEntry[] = [];
  const removeExitHook = options.outliveThisProcess ? () => {} : killOnExit(() => started);
  let state: ClusterState | undefined;
  try {
    const pgDir = join(dir, 'pg');
    initDataDir(pgDir, log);
    const postgres = { pid: await startPostgres(pgDir, ports.postgres, join(dir, 'postgres.log')), program: 'postgres' };
    started.push(postgres);
    log(`PostgreSQL on 127.0.0.1:${ports.postgres} (pid ${postgres.pid})`);
    await setUpSchemas(dir, ports.postgres, log);

    const base = { dir, configFile, ports };
    // One after another: each service checks the cluster's metadata row against its config at
    // start-up and writes it when they differ (new ports), and two writing at once fail the second.
    const entries: Array<readonly [ServiceName, ProcessEntry]> = [];
    for (const service of SERVICES) {
      const entry = await startService(base, service);
      started.push(entry);
      entries.push([service, entry]);
      log(`${service} service pid ${entry.pid} on 127.0.0.1:${ports.services[service].grpc}`);
    }
    const address = frontendAddress(ports);
    state = {
      serverVersion: TEMPORAL_SERVER_VERSION,
      dir,
      address,
      namespace,
      configFile,
      ports,
      postgres,
      services: Object.fromEntries(entries) as ClusterState['services'],
      startedAt: new Date().toISOString(),
      ...(options.outliveThisProcess ? {} : { owner: { pid: process.pid, program: process.execPath } }),
    };
    writeState(state);
    await prepareNamespace(address, namespace, log);
    log(`cluster ready at ${address}, namespace ${namespace}`);
  } catch (err) {
    for (const p of started.reverse()) await stopProcess(p.pid, p.program, 'SIGKILL');
    removeExitHook();
    removeState(dir);
    if (scratch) rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return handle(state, scratch, removeExitHook, log, started);
}

function handle(state: ClusterState, scratch: boolean, removeExitHook: () => void, log: Log, tracked: ProcessEntry[]): Cluster {
  const kill = async (service: ServiceName): Promise<void> => {
    const entry = state.services[service];
    await stopProcess(entry.pid, entry.program, 'SIGKILL');
    log(`killed ${service} (pid ${entry.pid})`);
  };
  return {
    address: state.address,
    namespace: state.namespace,
    dir: state.dir,
    pids: () => Object.fromEntries(SERVICES.map((s) => [s, state.services[s].pid])) as Record<ServiceName, number>,
    kill,
    restart: async (service) => {
      if (isRunning(state.services[service].pid, serverBinary)) await kill(service);
      const entry = await startService(state, service);
      tracked.push(entry);
      state = { ...state, services: { ...state.services, [service]: entry } };
      writeState(state);
      log(`restarted ${service} (pid ${entry.pid})`);
    },
    stop: async () => {
      await stopCluster(state, log);
      removeExitHook();
      if (scratch && existsSync(state.dir)) rmSync(state.dir, { recursive: true, force: true });
    },
  };
}

/**
 * Stops what a state file names, by pid: the services first (worker, frontend, matching,
 * history: nothing new arrives while history finishes), then PostgreSQL with a fast shutdown.
 */
export async function stopCluster(state: ClusterState, log: Log = quietLog): Promise<void> {
  for (const service of [...SERVICES].reverse()) {
    const entry = state.services[service];
    await stopProcess(entry.pid, entry.program, 'SIGTERM');
  }
  await stopProcess(state.postgres.pid, state.postgres.program, 'SIGINT');
  removeState(state.dir);
  log(`stopped the cluster in ${state.dir}`);
}

/**
 * Scratch clusters whose process died without stop() leave their folder behind, PostgreSQL data
 * and all, and when that process was SIGKILLed (no exit hook ran) their processes too. A cluster
 * whose owner is gone is stopped by its pids; a folder with no live process, untouched for ten
 * minutes, is removed (a cluster still starting has no state file yet but touches its folder).
 */
async function removeAbandonedScratch(log: Log): Promise<void> {
  for (const name of readdirSync(scratchParent)) {
    const dir = join(scratchParent, name);
    try {
      const state = readState(dir);
      if (state && runningProcesses(state).length > 0) {
        if (!state.owner || isRunning(state.owner.pid, state.owner.program)) continue;
        log(`stopping the scratch cluster in ${dir}: the process that started it (pid ${state.owner.pid}) is gone`);
        await stopCluster(state, log);
      } else if (Date.now() - statSync(dir).mtimeMs < 10 * 60_000) {
        continue;
      }
      rmSync(dir, { recursive: true, force: true });
      log(`removed the abandoned scratch cluster ${dir}`);
    } catch {
      // Someone else's to clean up, or gone already.
    }
  }
}
