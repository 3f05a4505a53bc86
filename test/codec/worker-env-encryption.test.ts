// A worker made with createAgentWorker, AGENT_PAYLOAD_KEYS set and nothing else said about
// encryption (no workerOptionsFromEnv spread, no codec plugin): what the server stores of its
// runs is sealed all the same. An operator who sets the variable expects that; a worker that wrote
// in clear because a script forgot a spread would fail silently. A ring it cannot read stops it
// before it connects, and a worker given the codec plugin as well seals each payload once.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { WorldClient } from '../../domains/world/client.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { agentCodecPlugin } from '../../worker/codec-plugin.js';
import { createAgentWorker } from '../../worker/create-worker.js';
import { loadPayloadCodec, payloadKeyId, type AesGcmPayloadCodec } from '../../worker/payload-codec.js';
import { PayloadKeyRingError } from '../../worker/payload-keys.js';
import { startRun, uniqueCase } from '../support/agent.js';
import { codecPayloadsOf, converterFor, encodingOf, newKey, openOneLayer, rawHistory, ringEnv, testPluginOptions } from '../support/codec.js';
import type { RunResult } from '../../workflows/messages.js';
import { uniqueTaskQueue } from '../support/temporal.js';

const world = new WorldClient(inject('worldUrl'));
const key = newKey();
const ring = ringEnv('k1', { k1: key });

/** createAgentWorker as a team's script calls it, with AGENT_PAYLOAD_KEYS set to `path` while it runs. */
async function workerWith(path: string, connection: NativeConnection, taskQueue: string, codecPlugin?: AesGcmPayloadCodec): Promise<Worker> {
  const before = process.env.AGENT_PAYLOAD_KEYS;
  process.env.AGENT_PAYLOAD_KEYS = path;
  try {
    return await createAgentWorker({
      connection,
      namespace: inject('temporalNamespace'),
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      ...testPluginOptions(),
      ...(codecPlugin ? { plugins: [agentCodecPlugin([codecPlugin])] } : {}),
    });
  } finally {
    if (before === undefined) delete process.env.AGENT_PAYLOAD_KEYS;
    else process.env.AGENT_PAYLOAD_KEYS = before;
  }
}

describe('createAgentWorker and AGENT_PAYLOAD_KEYS', () => {
  let native: NativeConnection;
  let connection: Connection;
  let client: Client;
  let raw: Client;
  beforeAll(async () => {
    native = await NativeConnection.connect({ address: inject('temporalAddress') });
    connection = await Connection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection, namespace: inject('temporalNamespace'), dataConverter: converterFor(ring) });
    raw = new Client({ connection, namespace: inject('temporalNamespace') });
  });
  afterAll(async () => {
    await native?.close();
    await connection?.close();
  });

  /** A payments run on a worker of `make`, to its end; the payloads the server holds for it. */
  async function runOn(make: (taskQueue: string) => Promise<Worker>) {
    const taskQueue = uniqueTaskQueue('env-sealed');
    const worker = await make(taskQueue);
    const running = worker.run();
    try {
      const transferId = uniqueCase('PX');
      await seedTransfer(world, transferId, { destination: `NL91ZZQX${transferId.slice(-8)}0417`, replicaStatus: 'NOT_FOUND' });
      // Started by a client without the codec, so that a worker without it runs too (and is caught
      // by what it wrote, not by a run that cannot start): the start event is the client's, in clear.
      const { workflowId } = await startRun({ client: raw, taskQueue }, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
      const result = (await client.workflow.getHandle(workflowId).result()) as RunResult;
      const written = codecPayloadsOf(await rawHistory(raw, workflowId)).filter((p) => !p.path.includes('workflowExecutionStartedEventAttributes'));
      return { result, payloads: written };
    } finally {
      worker.shutdown();
      await running;
    }
  }

  it('seals every payload a run writes, with no spread and no plugin', async () => {
    const run = await runOn((taskQueue) => workerWith(ring.AGENT_PAYLOAD_KEYS as string, native, taskQueue));
    expect(run.result.terminal.class).toBe('resolved');
    // The worker's own writes are among them: tool results, model replies, the run's result.
    expect(run.payloads.length).toBeGreaterThan(10);
    expect(run.payloads.filter((p) => encodingOf(p.payload) !== 'binary/encrypted').map((p) => p.path)).toEqual([]);
    expect(new Set(run.payloads.map((p) => payloadKeyId(p.payload)))).toEqual(new Set(['k1']));
  });

  /** One layer: what the ring's key opens is the plain payload, never another sealed one. */
  const sealedOnce = (payloads: { payload: Payload }[]) =>
    payloads.map((p) => openOneLayer(p.payload, key)).filter((p) => encodingOf(p) === 'binary/encrypted').length;

  it('seals once when the codec plugin is given as well', async () => {
    const codec = loadPayloadCodec(ring) as AesGcmPayloadCodec;
    const run = await runOn((taskQueue) => workerWith(ring.AGENT_PAYLOAD_KEYS as string, native, taskQueue, codec));
    expect(run.result.terminal.class).toBe('resolved');
    expect(sealedOnce(run.payloads)).toBe(0);
  });

  it("seals once when the codec plugin is on its connection (the SDK adds those to the worker's), given again or not", async () => {
    const plugin = agentCodecPlugin([loadPayloadCodec(ring) as AesGcmPayloadCodec]);
    const onConnection = await NativeConnection.connect({ address: inject('temporalAddress'), plugins: [plugin] });
    try {
      for (const again of [undefined, loadPayloadCodec(ring) as AesGcmPayloadCodec]) {
        const run = await runOn((taskQueue) => workerWith(ring.AGENT_PAYLOAD_KEYS as string, onConnection, taskQueue, again));
        expect(run.result.terminal.class).toBe('resolved');
        expect(run.payloads.length).toBeGreaterThan(10);
        expect(sealedOnce(run.payloads)).toBe(0);
      }
    } finally {
      await onConnection.close();
    }
  });

  it('does not start on a ring it cannot read', async () => {
    const missing = join(inject('scratchDir'), `no-ring-${randomUUID()}.json`);
    await expect(workerWith(missing, native, uniqueTaskQueue('env-unsealed'))).rejects.toThrow(PayloadKeyRingError);
  });
});
