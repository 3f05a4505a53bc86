// Why this exists: what an AgentDojo run needs, started by this process and stopped by close() by
// handle and pid: a Temporal server (the one given, else the environment's, else a dev server
// started here, as `npm run eval` does), the bridge process, a client, and an in-process worker
// for the AgentDojo domains with the scripted models and the user's key in its directory; given a
// local model's URL, the worker's OpenAI-compatible adapter is pointed at it too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { directoryEntry, generateKey, type KeyFile } from '../../client/sign.js';
import type { Log } from '../../temporal-dev/log.js';
import { useTemporal } from '../../temporal-dev/target.js';
import type { ModelAdapter } from '../../activities/model/index.js';
import { createOpenAiAdapter } from '../../activities/model/openai.js';
import { createAgentWorker } from '../../worker/create-worker.js';
import { ACCOUNT_HOLDER } from './banking.js';
import { startBridge, type RunningBridge } from './bridge-process.js';
import { BridgeClient } from './client.js';
import { agentdojoImplementations } from './implementations.js';
import { agentdojoAdapters, PairRegistry } from './models.js';
import { WORKSPACE_USER } from './slack.js';
import { TRAVELLER } from './travel.js';
import { WORKSPACE_OWNER } from './workspace.js';

export const workflowsPath = fileURLToPath(new URL('./workflows.ts', import.meta.url));

export interface AgentDojoStack {
  client: Client;
  taskQueue: string;
  bridge: BridgeClient;
  bridgeProcess: RunningBridge;
  registry: PairRegistry;
  /** The user: signs their request as a note, and decides what they are asked. */
  user: KeyFile;
  close(): Promise<void>;
}

/** A model server the worker's `openai` adapter calls (the runner's `--models local`). */
export interface LocalEndpoint {
  baseUrl: string;
  modelId: string;
}

// One reply of a CPU model takes tens of seconds; the model activity's start-to-close (2 min,
// workflows/policy.ts) bounds it anyway, so the adapter gives up just before and Temporal retries.
const LOCAL_MODEL_TIMEOUT_MS = 110_000;

/**
 * The worker's OpenAI-compatible adapter for the local model, the same one `npm run eval
 * --endpoint` uses. Its answers reach AgentDojo the way the scripted models' do: through the probe.
 */
function localAdapter(endpoint: LocalEndpoint): ModelAdapter {
  return createOpenAiAdapter({
    baseUrl: endpoint.baseUrl,
    model: endpoint.modelId,
    // The local server reads no key, but the client insists on one.
    apiKey: 'not-needed',
    timeoutMs: LOCAL_MODEL_TIMEOUT_MS,
    maxTokens: 1_024,
    render: 'chat',
  });
}

export async function startAgentDojoStack(options: {
  log: Log;
  temporal?: { address: string; namespace: string };
  local?: LocalEndpoint;
}): Promise<AgentDojoStack> {
  const scratch = mkdtempSync(join(tmpdir(), 'agentdojo-'));
  const undo: (() => Promise<void>)[] = [async () => rmSync(scratch, { recursive: true, force: true })];
  const closeAll = async () => {
    for (const step of undo.reverse()) await step().catch((err: unknown) => options.log(`close: ${String(err)}`));
  };
  try {
    let address: string;
    let namespace: string;
    let connectionOptions: Parameters<typeof NativeConnection.connect>[0];
    if (options.temporal) {
      ({ address, namespace } = options.temporal);
      connectionOptions = { address };
    } else {
      const target = await useTemporal({ headless: true, dynamicConfig: { 'history.transferProcessorMaxPollRPS': 1_000 }, log: options.log });
      undo.push(() => target.stop());
      ({ address, namespace, connectionOptions } = target);
    }
    const bridgeProcess = await startBridge(options.log);
    undo.push(() => bridgeProcess.stop());
    const bridge = new BridgeClient(bridgeProcess.url);
    const connection = await Connection.connect({ ...connectionOptions, address } as Parameters<typeof Connection.connect>[0]);
    undo.push(() => connection.close());
    const client = new Client({ connection, namespace });
    const workerConnection = await NativeConnection.connect(connectionOptions);
    undo.push(() => workerConnection.close());
    const registry = new PairRegistry();
    const user = generateKey('agentdojo-user@eval');
    const taskQueue = `agentdojo-${process.pid}-${Date.now().toString(36)}`;
    const worker = await createAgentWorker({
      connection: workerConnection,
      namespace,
      taskQueue,
      workflowsPath,
      implementations: agentdojoImplementations,
      deps: { bridge, heard: (caseId: string, answer: string) => registry.heard(caseId, answer) },
      blobDir: join(scratch, 'blobs'),
      toolTimeoutMs: 10_000,
      models: { custom: agentdojoAdapters(registry), ...(options.local ? { openai: localAdapter(options.local) } : {}) },
      approvers: { approvers: [directoryEntry(user, [ACCOUNT_HOLDER, WORKSPACE_USER, TRAVELLER, WORKSPACE_OWNER])] },
    });
    const running = worker.run();
    void running.catch((err: unknown) => options.log(`worker stopped: ${String(err)}`));
    undo.push(async () => {
      worker.shutdown();
      await running;
    });
    return { client, taskQueue, bridge, bridgeProcess, registry, user, close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
