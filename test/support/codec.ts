// What the encryption tests share: key rings written to files (as an operator would), a client
// and a real worker that both take their data converter from the environment the way every
// entry point will, and the history exactly as the server stores it, read without any codec.
import { createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter, Payload } from '@temporalio/common';
import proto, { type temporal } from '@temporalio/proto';
import { NativeConnection, Worker, type BundlerPlugin } from '@temporalio/worker';
import { SEALED_FAILURES_PATH } from '../../worker/sealed-failures.js';
import { inject } from 'vitest';
import { createActivities } from '../../activities/index.js';
import { implementations } from '../../domains/implementations.js';
import { WorldClient } from '../../domains/world/client.js';
import { agentCodecPlugin } from '../../worker/codec-plugin.js';
import { dataConverterFromEnv, loadPayloadCodec } from '../../worker/payload-codec.js';
import { agentBundling, agentPlugin, type AgentPlugin, type AgentPluginOptions } from '../../worker/plugin.js';
import { examplesWorkflowsPath } from '../../demo/local-stack.js';
import { suiteBundle } from './bundles.js';
import { TEST_DIRECTORY } from './keys.js';
import { createTestWorker } from './temporal.js';

export type History = temporal.api.history.v1.IHistory;

export function newKey(): string {
  return randomBytes(32).toString('base64');
}

// Key files, even test ones, do not outlive the run: they go in its scratch directory, which the
// global setup removes. (A directory of their own, removed on the process's exit, outlived every
// run: vitest ends its test processes without running their exit handlers.)
let ringDir: string | undefined;
let rings = 0;

/** Writes a key-ring file and returns the environment that points at it. */
export function ringEnv(current: string, keys: Record<string, string>): NodeJS.ProcessEnv {
  ringDir ??= mkdtempSync(join(inject('scratchDir'), 'payload-keys-'));
  const path = join(ringDir, `ring-${++rings}.json`);
  writeFileSync(path, JSON.stringify({ current, keys }), { mode: 0o600 });
  return { AGENT_PAYLOAD_KEYS: path };
}

/**
 * One layer of the engine's sealing taken off with `key` (base64), written from the format
 * (worker/payload-codec.ts: IV, ciphertext of the Payload message, tag; `agent-payload/v1/<key
 * id>` as associated data) rather than with the codec, which opens a second layer too: a test that a payload was
 * sealed once looks at what is under the first.
 */
export function openOneLayer(payload: Payload, key: string): Payload {
  const data = Buffer.from(payload.data ?? new Uint8Array());
  const keyId = Buffer.from(payload.metadata?.['encryption-key-id'] ?? new Uint8Array()).toString('utf8');
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(key, 'base64'), data.subarray(0, 12), { authTagLength: 16 });
  decipher.setAAD(Buffer.from(`agent-payload/v1/${keyId}`, 'utf8'));
  decipher.setAuthTag(data.subarray(data.length - 16));
  const plain = Buffer.concat([decipher.update(data.subarray(12, data.length - 16)), decipher.final()]);
  const inner = proto.temporal.api.common.v1.Payload.decode(plain);
  return { metadata: inner.metadata, data: inner.data };
}

export function converterFor(env: NodeJS.ProcessEnv): DataConverter {
  const converter = dataConverterFromEnv(env);
  if (!converter) throw new Error('the test ring did not yield a data converter');
  return converter;
}

export interface Stack {
  client: Client;
  /** A client with no data converter: what the server holds, as anyone without keys sees it. */
  raw: Client;
  close(): Promise<void>;
}

/** A client and an in-process worker on `taskQueue`, both with the converter of `env` (none when undefined). */
export async function startStack(taskQueue: string, env: NodeJS.ProcessEnv | undefined): Promise<Stack> {
  const dataConverter = env ? converterFor(env) : undefined;
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  const namespace = inject('temporalNamespace');
  const client = new Client({ connection, namespace, ...(dataConverter ? { dataConverter } : {}) });
  const raw = new Client({ connection, namespace });
  const { worker, close } = await createTestWorker({
    taskQueue,
    ...(dataConverter ? { dataConverter } : {}),
    // A restarted worker must not wait out the old one's sticky queue.
    stickyQueueScheduleToStartTimeout: '1 second',
    activities: createActivities(testPluginOptions()),
  });
  const running = worker.run();
  return {
    client,
    raw,
    async close() {
      worker.shutdown();
      await running;
      await close();
      await connection.close();
    },
  };
}

/** Every page of a run's history, straight from the frontend service: no codec touches it. */
export async function rawHistory(client: Client, workflowId: string): Promise<History> {
  const events: temporal.api.history.v1.IHistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId },
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    events.push(...(page.history?.events ?? []));
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return { events };
}

/** The history as the bytes the server sends: what a search for plaintext looks through. */
export function historyBytes(history: History): Buffer {
  return Buffer.from(proto.temporal.api.history.v1.History.encode(history).finish());
}

export interface FoundPayload {
  /** Where in the history it sits, e.g. `events.0.workflowExecutionStartedEventAttributes.input.payloads.0`. */
  path: string;
  payload: Payload;
}

/**
 * Every payload in the history outside search attributes, which Temporal never passes through a
 * codec (they are indexed by the server, so they must stay readable there).
 */
export function payloadsOf(history: History): FoundPayload[] {
  const found: FoundPayload[] = [];
  const walk = (value: unknown, path: string): void => {
    if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return;
    if (path.endsWith('searchAttributes')) return;
    const metadata = (value as { metadata?: Record<string, unknown> }).metadata;
    if (metadata && typeof metadata === 'object' && metadata.encoding instanceof Uint8Array) {
      found.push({ path, payload: value as Payload });
      return;
    }
    for (const [key, child] of Object.entries(value)) walk(child, path ? `${path}.${key}` : key);
  };
  walk(history, '');
  return found;
}

/**
 * Patch markers (`patched()`) are written by Temporal's core, not through the codec; they hold the
 * patch's id and a flag only.
 */
export function isPatchMarker(found: FoundPayload): boolean {
  return /markerRecordedEventAttributes\.details\.patch-data\./.test(found.path);
}

/** What Temporal's core writes in clear about a local activity: which one it was, and when. */
const LOCAL_ACTIVITY_FIELDS = new Set(['seq', 'attempt', 'activity_id', 'activity_type', 'complete_time', 'backoff', 'original_schedule_time']);

/**
 * A local activity's marker data (the engine's seal check, workflows/sealed.ts): Temporal's core
 * writes it in clear, as it does a patch marker, and it names the activity and its timing, nothing
 * of the case, which this checks. The check's verdict is the marker's result, sealed like any payload.
 */
export function isSealCheckMarker(found: FoundPayload): boolean {
  if (!/markerRecordedEventAttributes\.details\.data\./.test(found.path) || encodingOf(found.payload) !== 'json/plain') return false;
  try {
    const data = JSON.parse(Buffer.from(found.payload.data ?? new Uint8Array()).toString()) as Record<string, unknown>;
    return data.activity_type === 'checkResultSeals' && Object.keys(data).every((k) => LOCAL_ACTIVITY_FIELDS.has(k));
  } catch {
    return false;
  }
}

/** What Temporal writes in clear whatever the codec: patch markers and the seal check's marker data. */
export function writtenInClear(found: FoundPayload): boolean {
  return isPatchMarker(found) || isSealCheckMarker(found);
}

/** The payloads a codec is asked to seal: all but what Temporal writes in clear. */
export function codecPayloadsOf(history: History): FoundPayload[] {
  return payloadsOf(history).filter((p) => !writtenInClear(p));
}

export function encodingOf(payload: Payload): string {
  return Buffer.from(payload.metadata?.encoding ?? new Uint8Array()).toString('utf8');
}

/** What the tests' workers are given: the examples, the shared world, the test directory. */
export function testPluginOptions(): AgentPluginOptions {
  return {
    implementations,
    deps: { world: new WorldClient(inject('worldUrl')) },
    blobDir: join(tmpdir(), 'agent-test-blobs'),
    toolTimeoutMs: 1_500,
    approvers: TEST_DIRECTORY,
  };
}

/** agentPlugin as the tests' workers use it (testPluginOptions). */
export function testAgentPlugin(): AgentPlugin {
  return agentPlugin(testPluginOptions());
}

/**
 * The examples' bundle as a worker with the codec builds it from a workflowsPath: Temporal's
 * bundler then builds the data converter's failure converter into the workflow code too.
 */
export async function codecPluginBundle(): Promise<string> {
  const withConverter: BundlerPlugin = { name: 'sealed-failures', configureBundler: (o) => ({ ...o, failureConverterPath: SEALED_FAILURES_PATH }) };
  const bundle = await suiteBundle(examplesWorkflowsPath, [withConverter, agentBundling]);
  return readFileSync(bundle.codePath, 'utf8');
}

/**
 * A client with the converter of `clientEnv` (none when undefined) and a worker built the way a
 * team builds one: Worker.create with agentCodecPlugin (when `workerEnv` names a ring) and then
 * agentPlugin, on a bundle made with the plugin.
 */
export async function startPluginStack(
  taskQueue: string,
  options: { workerEnv: NodeJS.ProcessEnv | undefined; clientEnv: NodeJS.ProcessEnv | undefined; bundleCode: string },
): Promise<Stack> {
  const clientConverter = options.clientEnv ? converterFor(options.clientEnv) : undefined;
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  const namespace = inject('temporalNamespace');
  const client = new Client({ connection, namespace, ...(clientConverter ? { dataConverter: clientConverter } : {}) });
  const raw = new Client({ connection, namespace });
  const codec = options.workerEnv ? loadPayloadCodec(options.workerEnv) : undefined;
  const workerConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const worker = await Worker.create({
    connection: workerConnection,
    namespace,
    taskQueue,
    workflowBundle: { code: options.bundleCode },
    stickyQueueScheduleToStartTimeout: '1 second',
    plugins: [...(codec ? [agentCodecPlugin([codec])] : []), testAgentPlugin()],
  });
  const running = worker.run();
  return {
    client,
    raw,
    async close() {
      worker.shutdown();
      await running;
      await workerConnection.close();
      await connection.close();
    },
  };
}

/** A payload as anyone who reaches the frontend can write it: any metadata, any bytes. */
export function forgedPayload(encoding: string, data: string, metadata: Record<string, string> = {}): Payload {
  const utf8 = (text: string) => Buffer.from(text, 'utf8');
  return {
    metadata: { encoding: utf8(encoding), ...Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, utf8(v)])) },
    data: utf8(data),
  };
}

/** A client alone, with the converter of `env`, on a connection of its own. */
export async function connectCodecClient(env: NodeJS.ProcessEnv): Promise<{ client: Client; close: () => Promise<void> }> {
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  const client = new Client({ connection, namespace: inject('temporalNamespace'), dataConverter: converterFor(env) });
  return { client, close: () => connection.close() };
}

/** Sends a signal straight to the frontend with the payloads as given: no converter, no codec. */
export async function sendRawSignal(client: Client, workflowId: string, signalName: string, payloads: Payload[]): Promise<void> {
  await client.workflowService.signalWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId },
    signalName,
    input: { payloads },
    identity: 'forger',
  });
}

/** A data converter whose only codec relabels every payload it sends with `encoding`: a client that writes what no worker reads. */
export function relabellingConverter(encoding: string): DataConverter {
  const label = Buffer.from(encoding, 'utf8');
  return {
    payloadCodecs: [
      {
        encode: async (payloads) => payloads.map((p) => ({ ...p, metadata: { ...p.metadata, encoding: label } })),
        decode: async (payloads) => payloads,
      },
    ],
  };
}
