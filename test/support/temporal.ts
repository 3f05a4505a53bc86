// Temporal for tests: clients and real in-process workers on the dev server the global setup
// started, with the workflow bundle it built once (or a test's own module, bundled once a run).
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions, type WorkflowBundleOption } from '@temporalio/worker';
import { afterAll, beforeAll, inject } from 'vitest';
import { engineActivities, type ActivityDeps } from '../../activities/index.js';
import { resolveResultKeys } from '../../activities/result-keys.js';
import { sealActivities } from '../../activities/result-seal.js';
import { implementations } from '../../domains/implementations.js';
import { WorldClient } from '../../domains/world/client.js';
import { suiteBundle } from './bundles.js';
import { TEST_DIRECTORY } from './keys.js';

export function uniqueTaskQueue(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export async function connectClient(): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  const client = new Client({ connection, namespace: inject('temporalNamespace') });
  return { client, close: () => connection.close() };
}

/** A client for every test of the enclosing describe block; call it inside tests only. */
export function useClient(): () => Client {
  let connected: { client: Client; close: () => Promise<void> } | undefined;
  beforeAll(async () => {
    connected = await connectClient();
  });
  afterAll(async () => {
    await connected?.close();
  });
  return () => {
    if (!connected) throw new Error('the client is only there inside the tests of its describe block');
    return connected.client;
  };
}

/** A real in-process Worker on the shared dev server, using the bundle made once in global setup. */
export async function createTestWorker(
  options: Omit<WorkerOptions, 'connection' | 'namespace' | 'workflowBundle' | 'workflowsPath'>,
  workflowsPath?: string,
): Promise<{ worker: Worker; close: () => Promise<void> }> {
  const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const worker = await Worker.create({
    connection,
    namespace: inject('temporalNamespace'),
    // The suite's one bundle of the example domains, unless a test brings workflow code of its
    // own: then that module's bundle, built once for the run.
    workflowBundle: workflowsPath ? await suiteBundle(workflowsPath) : { codePath: inject('workflowBundlePath') },
    ...options,
  });
  return { worker, close: () => connection.close() };
}

/** A worker's options beyond the ones startWorkerWith fills in. */
type ExtraWorkerOptions = Omit<WorkerOptions, 'connection' | 'namespace' | 'workflowBundle' | 'workflowsPath' | 'taskQueue' | 'activities'>;

type EngineActivities = ReturnType<typeof engineActivities>;

export interface WorkerWithOptions {
  taskQueue: string;
  /** createActivities options over the tests' own: the examples' implementations, the shared world, the test directory. */
  activities?: Partial<ActivityDeps>;
  /** The activities to put in place of built ones; it is handed those, e.g. to wrap one. */
  swap?: (built: EngineActivities) => Partial<EngineActivities>;
  worker?: ExtraWorkerOptions;
  /** A workflows module of the test's own (its bundle built once for the run) in place of the examples' bundle. */
  workflowsPath?: string;
}

export interface StartedWorker {
  client: Client;
  world: WorldClient;
  taskQueue: string;
  worker: Worker;
  /** Stops the worker (waiting for it to finish), then both connections. */
  close(): Promise<void>;
}

/**
 * A client and a running test worker whose activities are the engine's, built as a real worker
 * builds them, with what `swap` returns put in their place: a slow directory, a confused ledger,
 * a priced model. The worker runs until close().
 */
export async function startWorkerWith(options: WorkerWithOptions): Promise<StartedWorker> {
  const world = new WorldClient(inject('worldUrl'));
  const built = engineActivities({
    implementations,
    deps: { world },
    blobDir: join(tmpdir(), 'agent-test-blobs'),
    approvers: TEST_DIRECTORY,
    ...options.activities,
  });
  const { client, close: closeClient } = await connectClient();
  const { worker, close: closeWorker } = await createTestWorker(
    {
      ...options.worker,
      taskQueue: options.taskQueue,
      // Sealed as a real worker seals them, the swapped ones too.
      activities: sealActivities(resolveResultKeys(options.activities?.resultKeys), { ...built, ...options.swap?.(built) }),
    },
    options.workflowsPath,
  ).catch(async (error: unknown) => {
    await closeClient();
    throw error;
  });
  const running = worker.run();
  return {
    client,
    world,
    taskQueue: options.taskQueue,
    worker,
    async close() {
      worker.shutdown();
      await running;
      await closeWorker();
      await closeClient();
    },
  };
}

/**
 * An attacker's worker on a queue of their own: their workflows only, no activities. Returns how
 * to stop it.
 */
export async function startForeignWorker(
  taskQueue: string,
  workflows: { workflowsPath: string } | { workflowBundle: WorkflowBundleOption },
): Promise<() => Promise<void>> {
  const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const worker = await Worker.create({
    connection,
    namespace: inject('temporalNamespace'),
    taskQueue,
    ...workflows,
    ...('workflowsPath' in workflows ? { bundlerOptions: { ignoreModules: [] } } : {}),
  });
  const running = worker.run();
  return async () => {
    worker.shutdown();
    await running;
    await connection.close();
  };
}
