// Payments and incidents runs through a client and a real worker that both seal payloads: what
// the server stores holds none of the case's data in clear, every payload in it is sealed, and
// the history as the server returns it replays with the codec (and without it, fails). The same
// search over a run without the codec finds every string, so the search itself can fail.
import type { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { seedIncident, seedTransfer } from '../../domains/world/seeds.js';
import { WorldClient } from '../../domains/world/client.js';
import { payments } from '../../domains/payments/domain.js';
import { serverFacts } from '../../client/server-facts.js';
import { stateQuery } from '../../workflows/messages.js';
import { payloadKeyId } from '../../worker/payload-codec.js';
import { startRun, uniqueCase } from '../support/agent.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { waitUntil } from '../support/wait.js';
import {
  codecPayloadsOf,
  codecPluginBundle,
  converterFor,
  encodingOf,
  isPatchMarker,
  isSealCheckMarker,
  historyBytes,
  newKey,
  payloadsOf,
  writtenInClear,
  rawHistory,
  ringEnv,
  startPluginStack,
  startStack,
  type Stack,
} from '../support/codec.js';

const world = new WorldClient(inject('worldUrl'));
const ring = ringEnv('k1', { k1: newKey() });

/** A transfer whose details are distinctive enough to find in a byte search of the history. */
async function seedDistinctive(transferId: string) {
  const marker = transferId.slice(-8);
  const destination = `NL91ZZQX${marker}0417`;
  const note = `caller Ottilie-${marker} phoned twice about it`;
  await seedTransfer(world, transferId, { destination, amountMinor: 9_876_543, replicaNote: note, replicaStatus: 'NOT_FOUND' });
  return { destination, note, amount: '9876543', goal: payments.goal(transferId).slice(0, 60) };
}

async function paymentsRun(stack: Stack, taskQueue: string) {
  const transferId = uniqueCase('PX');
  const secrets = await seedDistinctive(transferId);
  const handle = await startRun({ client: stack.client, taskQueue }, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
  const result = await handle.result();
  // The run read what the search looks for: the strings were there to be leaked.
  const view = await handle.query(stateQuery);
  return { transferId, secrets, result, view, workflowId: handle.workflowId };
}

/** An incident whose logs carry a distinctive line, run to its end; the raw history's bytes. */
async function incidentRun(stack: Stack, taskQueue: string) {
  const caseId = uniqueCase('INC');
  const logLine = `cache-${caseId.slice(-8)} evicted the session of customer Vandermeer`;
  await seedIncident(world, caseId, { hostileLogLine: logLine });
  const handle = await startRun({ client: stack.client, taskQueue }, { domain: 'incidents', caseId, model: { adapter: 'rules' } });
  await handle.result();
  const view = await handle.query(stateQuery);
  expect(view.state.executions.some((x) => x.tool === 'get_logs')).toBe(true);
  return { logLine, bytes: historyBytes(await rawHistory(stack.raw, handle.workflowId)) };
}

describe('encrypted payloads in history (real dev server, real worker)', () => {
  const sealedQueue = uniqueTaskQueue('sealed');
  const plainQueue = uniqueTaskQueue('plain');
  let sealed: Stack;
  let plain: Stack;
  beforeAll(async () => {
    [sealed, plain] = await Promise.all([startStack(sealedQueue, ring), startStack(plainQueue, undefined)]);
  });
  afterAll(async () => {
    await Promise.all([sealed?.close(), plain?.close()]);
  });

  it('a payments run leaves no transfer details, note or goal in clear, and every payload is sealed under the current key', async () => {
    const run = await paymentsRun(sealed, sealedQueue);
    expect(run.result.terminal.class).toBe('resolved');
    // The decoding client sees the case data: the codec round-trips.
    const seen = JSON.stringify(run.view);
    expect(seen).toContain(run.secrets.destination);
    expect(seen).toContain(run.secrets.note);

    const history = await rawHistory(sealed.raw, run.workflowId);
    const bytes = historyBytes(history);
    for (const secret of Object.values(run.secrets)) expect(bytes.includes(secret), `"${secret}" in the raw history`).toBe(false);

    const payloads = payloadsOf(history);
    expect(payloads.length).toBeGreaterThan(10);
    const notSealed = payloads
      .filter((p) => !writtenInClear(p) && encodingOf(p.payload) !== 'binary/encrypted')
      .map((p) => `${p.path}: ${encodingOf(p.payload)}`);
    expect(notSealed).toEqual([]);
    // What Temporal's core writes in clear for a patch marker: the patch's id and a flag, nothing of the case.
    const markers = payloads
      .filter(isPatchMarker)
      .map((p) => JSON.parse(Buffer.from(p.payload.data ?? new Uint8Array()).toString()) as Record<string, unknown>);
    for (const marker of markers) expect(Object.keys(marker).sort()).toEqual(['deprecated', 'id']);
    // And for the seal check's local activity (workflows/sealed.ts): its type and timing, never a result.
    expect(payloads.filter(isSealCheckMarker).length).toBeGreaterThan(0);
    expect(new Set(codecPayloadsOf(history).map((p) => payloadKeyId(p.payload)))).toEqual(new Set(['k1']));
    // Temporal never encrypts the workflow id or search attributes: the case id is there, and only as an identifier.
    expect(bytes.includes(run.transferId)).toBe(true);
  });

  it('an incident run leaves no log line in clear', async () => {
    const { bytes, logLine } = await incidentRun(sealed, sealedQueue);
    expect(bytes.includes(logLine)).toBe(false);
    expect(bytes.includes('Vandermeer')).toBe(false);
  });

  it('without the codec the same search finds every string (the search can fail)', async () => {
    const run = await paymentsRun(plain, plainQueue);
    const bytes = historyBytes(await rawHistory(plain.raw, run.workflowId));
    for (const secret of Object.values(run.secrets)) expect(bytes.includes(secret), `"${secret}" in the raw history`).toBe(true);
    const incident = await incidentRun(plain, plainQueue);
    expect(incident.bytes.includes(incident.logLine)).toBe(true);
  });

  it("a failure's message is sealed with the payloads: in clear only 'Encoded failure'; with the key, the message (and in clear without the codec)", async () => {
    const failedOnce = async (stack: Stack, taskQueue: string) => {
      const transferId = uniqueCase('PX');
      await seedDistinctive(transferId);
      // The ledger answers its first read with a 500: the read fails once, then succeeds, and the
      // server keeps the failed attempt's failure in the history (ActivityTaskStarted.lastFailure).
      await world.injectFault({ op: 'payments.ledger', key: transferId, mode: 'error500', times: 1 });
      const handle = await startRun({ client: stack.client, taskQueue }, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
      expect((await handle.result()).terminal.class).toBe('resolved');
      const history = await rawHistory(stack.raw, handle.workflowId);
      const failures = (history.events ?? []).flatMap((e) =>
        e.activityTaskStartedEventAttributes?.lastFailure ? [e.activityTaskStartedEventAttributes.lastFailure] : [],
      );
      expect(failures).toHaveLength(1);
      return { failure: failures[0]!, bytes: historyBytes(history) };
    };
    const inClear = await failedOnce(plain, plainQueue);
    expect(inClear.failure.message).toMatch(/^read_ledger attempt 1: transient/);
    expect(inClear.bytes.includes(inClear.failure.message!)).toBe(true);

    const sealedRun = await failedOnce(sealed, sealedQueue);
    expect(sealedRun.failure.message).toBe('Encoded failure');
    expect(sealedRun.failure.stackTrace ?? '').toBe('');
    const attributes = sealedRun.failure.encodedAttributes;
    expect(attributes && encodingOf(attributes)).toBe('binary/encrypted');
    // The key opens it: the same kind of message the run without the codec wrote in clear, absent from these bytes.
    const [opened] = await converterFor(ring).payloadCodecs![0]!.decode([attributes!]);
    const sealedMessage = (JSON.parse(Buffer.from(opened!.data!).toString()) as { message: string }).message;
    expect(sealedMessage).toMatch(/^read_ledger attempt 1: transient/);
    expect(sealedRun.bytes.includes(sealedMessage)).toBe(false);
  });

  it("a failure the workflow code raises stays as Temporal writes it, in a bundle that carries the converter: the engine's own words", async () => {
    const queue = uniqueTaskQueue('sealed-bundle');
    const stack = await startPluginStack(queue, { workerEnv: ring, clientEnv: ring, bundleCode: await codecPluginBundle() });
    try {
      // A case id the payments domain refuses: the workflow fails, saying why.
      const caseId = `not-a-transfer-${Date.now().toString(36)}`;
      const handle = await stack.client.workflow.start('agentWorkflow', {
        taskQueue: queue,
        workflowId: `payments-${caseId}`,
        args: [{ run: { domain: 'payments', caseId, model: { adapter: 'rules' } } }],
      });
      const failed = await handle.result().then(
        () => undefined,
        (err: unknown) => (err as { cause?: Error }).cause?.message,
      );
      expect(failed).toMatch(/is not a payments case id/);
      // In the sandbox the converter is Temporal's default (worker/failure-converter.cjs says why):
      // the message is in clear, as a query's refusal must be for any client to read it.
      const history = await rawHistory(stack.raw, handle.workflowId);
      const closing = (history.events ?? []).find((e) => e.workflowExecutionFailedEventAttributes)?.workflowExecutionFailedEventAttributes?.failure;
      expect(closing?.message).toBe(failed);
      expect(closing?.encodedAttributes ?? null).toBeNull();
    } finally {
      await stack.close();
    }
  });

  it("a workflow task that fails in the worker's own process is sealed too, and `agent status` opens it with the key", async () => {
    // No such workflow in the bundle: the worker fails the task before any workflow code runs,
    // converting the error in its own process, where the failure converter seals.
    const handle = await sealed.client.workflow.start('noSuchWorkflow', {
      taskQueue: sealedQueue,
      workflowId: `sealed-task-${Date.now().toString(36)}`,
      args: [],
    });
    try {
      const failure = await waitUntil(async () => {
        const history = await rawHistory(sealed.raw, handle.workflowId);
        return (history.events ?? []).find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes?.failure ?? false;
      }, 'a failed workflow task');
      expect(failure.message).toBe('Encoded failure');
      const facts = (client: Client) => serverFacts(client, handle.workflowId, async () => ({ checked: false, recent: 0, lastPollAt: null }));
      expect((await facts(sealed.client)).workflowTaskFailure?.message).toMatch(/noSuchWorkflow/);
      expect((await facts(sealed.raw)).workflowTaskFailure?.message).toBe('Encoded failure (sealed; this process has no key that opens it)');
    } finally {
      await handle.terminate('the test is done with it');
    }
  });

  it('a history fetched raw replays with the codec, and not without it', async () => {
    const run = await paymentsRun(sealed, sealedQueue);
    const history = await sealed.raw.workflow.getHandle(run.workflowId).fetchHistory();
    const workflowBundle = { codePath: inject('workflowBundlePath') };
    await Worker.runReplayHistory({ workflowBundle, dataConverter: converterFor(ring), replayName: 'sealed-replay' }, history, run.workflowId);
    await expect(Worker.runReplayHistory({ workflowBundle, replayName: 'sealed-replay-no-codec' }, history, run.workflowId)).rejects.toThrow();
  });
});
