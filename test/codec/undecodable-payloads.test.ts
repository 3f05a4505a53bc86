// A payload the worker cannot decode is refused, not fatal (issue 32). Anyone who reaches the
// frontend can send a signal or an Update whose payload names an encoding the worker cannot open:
// `binary/encrypted` under a key id its ring does not hold, or an encoding nobody knows. Without
// the quarantine such a payload fails every workflow task of the run from then on. Here a payments
// run waits for approval on a worker built as a team builds one (agentCodecPlugin, agentPlugin,
// a bundle made with the plugin); it is sent such signals, Updates and a query, raw through the
// frontend and through clients with the wrong key or a codec of their own; then it is approved
// properly, and the world holds the one reissue. And the other side: a worker whose ring lacks the
// key of the run's own activity results fails its workflow task, naming the key, and the run
// goes on once a worker has the key again.
import { Client, WorkflowUpdateFailedError } from '@temporalio/client';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { signDecision } from '../../client/sign.js';
import { WorldClient } from '../../domains/world/client.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { addNoteUpdate, approveUpdate, cancelSignal, stateQuery } from '../../workflows/messages.js';
import { UNDECODABLE_QUERY_MESSAGE, UNDECODABLE_UPDATE_MESSAGE } from '../../workflows/quarantine-interceptors.js';
import { reissuesOf, waitForRequest } from '../support/adversarial.js';
import { startRun, uniqueCase } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { waitUntil } from '../support/wait.js';
import {
  codecPluginBundle,
  connectCodecClient,
  converterFor,
  forgedPayload,
  newKey,
  rawHistory,
  relabellingConverter,
  ringEnv,
  sendRawSignal,
  startPluginStack,
  type History,
} from '../support/codec.js';

const world = new WorldClient(inject('worldUrl'));
const k1 = newKey();

let bundleCode = '';
beforeAll(async () => {
  // With the failure converter built in, as a worker that encrypts bundles its workflows: the
  // refusals below must still reach the client in words it can read, with or without the key.
  bundleCode = await codecPluginBundle();
});

function eventsOf(history: History) {
  return history.events ?? [];
}

/** The messages of every failed workflow task: what an operator sees when a run is stuck. */
function taskFailures(history: History): string[] {
  return eventsOf(history)
    .filter((e) => e.workflowTaskFailedEventAttributes)
    .map((e) => e.workflowTaskFailedEventAttributes?.failure?.message ?? '');
}

async function refusal(update: Promise<unknown>): Promise<string | undefined> {
  const error = await update.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  return (error as WorkflowUpdateFailedError).cause?.message;
}

const setups = [
  { name: 'a worker and client that seal payloads (key k1)', env: () => ringEnv('k1', { k1 }) },
  { name: 'a worker and client with no codec at all', env: () => undefined },
];

describe('undecodable payloads from clients are refused, and the run goes on (real dev server, agentPlugin worker)', () => {
  it.each(setups)('with $name: forged signals, Updates and a query, then a proper approval: resolved, one reissue', async ({ env }) => {
    const ring = env();
    const taskQueue = uniqueTaskQueue('quarantine');
    const transferId = uniqueCase('PX');
    await seedTransfer(world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const stack = await startPluginStack(taskQueue, { workerEnv: ring, clientEnv: ring, bundleCode });
    try {
      const handle = await startRun({ client: stack.client, taskQueue }, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
      const { workflowId } = handle;
      const asked = await waitForRequest(handle);

      // Signals, raw through the frontend: no converter, no codec, no key.
      await sendRawSignal(stack.raw, workflowId, cancelSignal.name, [forgedPayload('binary/whatever', 'stop')]);
      await sendRawSignal(stack.raw, workflowId, cancelSignal.name, [
        forgedPayload('binary/encrypted', 'not a ciphertext at all, but long enough', { 'encryption-key-id': 'k9', 'encryption-cipher': 'aes-256-gcm' }),
      ]);
      await sendRawSignal(stack.raw, workflowId, cancelSignal.name, [forgedPayload('json/plain', '{"by": "nobody", ')]);

      // Clients of their own: one seals under a key the worker does not hold, one labels its payloads with an unknown encoding.
      const connection = stack.client.connection;
      const namespace = stack.client.options.namespace;
      const strangers = [
        new Client({ connection, namespace, dataConverter: converterFor(ringEnv('k9', { k9: newKey() })) }),
        new Client({ connection, namespace, dataConverter: relabellingConverter('binary/whatever') }),
      ];
      const decision = signDecision(keys.alice, workflowId, asked, 'approve', 'sent in a payload the worker cannot read');
      for (const stranger of strangers) {
        const theirs = stranger.workflow.getHandle(workflowId);
        await theirs.signal(cancelSignal, { by: 'stranger', reason: 'stop it' });
        expect(await refusal(theirs.executeUpdate(approveUpdate, { args: [decision] }))).toBe(UNDECODABLE_UPDATE_MESSAGE);
        expect(await refusal(theirs.executeUpdate(addNoteUpdate, { args: [{ by: 'stranger', text: 'hello' }] }))).toBe(UNDECODABLE_UPDATE_MESSAGE);
      }
      const queried = await strangers[1]!.workflow
        .getHandle(workflowId)
        .query<unknown, [string]>('state', 'an argument')
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect((queried as Error).message).toContain(UNDECODABLE_QUERY_MESSAGE);

      // Every signal reached the run's history, and no workflow task failed over any of them.
      const history = await rawHistory(stack.raw, workflowId);
      expect(eventsOf(history).filter((e) => e.workflowExecutionSignaledEventAttributes)).toHaveLength(5);
      expect(taskFailures(history)).toEqual([]);
      expect(eventsOf(history).some((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).toBe(false);

      // The run still answers, still waits on the same request, and a proper approval is taken.
      const view = await handle.query(stateQuery);
      expect(view.state.terminal).toBeUndefined();
      expect(view.awaiting?.requestId).toBe(asked.requestId);
      const ack = await handle.executeUpdate(approveUpdate, { args: [decision] });
      expect(ack.decision).toBe('approved');
      const result = await handle.result();
      expect(result.terminal.class).toBe('resolved');
      expect(await reissuesOf(world, transferId)).toHaveLength(1);
    } finally {
      await stack.close();
    }
  });
});

/**
 * The worker without the key stops holding a workflow task; the next worker takes it when it times
 * out. Short, but long enough for a loaded host to replay the run's history within it.
 */
const HANDED_ON = { workflowTaskTimeout: '5 seconds' };

describe("the run's own payloads still fail loudly when the worker lacks their key", () => {
  it('a worker without the key of the activity results fails the workflow task naming it; with the key back, the run resolves', async () => {
    const taskQueue = uniqueTaskQueue('quarantine-loud');
    const transferId = uniqueCase('PX');
    await seedTransfer(world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const kc = newKey();
    const kw = newKey();
    // The client seals the input under kc; the first worker seals what it writes (activity
    // results) under kw. The clients (operators) hold both keys throughout: they are not on trial.
    const clientEnv = ringEnv('kc', { kc, kw });
    const first = await startPluginStack(taskQueue, { workerEnv: ringEnv('kw', { kc, kw }), clientEnv, bundleCode });
    const handle = await startRun({ client: first.client, taskQueue }, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } }, HANDED_ON);
    const { workflowId } = handle;
    const asked = await waitForRequest(handle);
    await first.close();

    // A worker whose ring lost kw: it opens the input, not the activity results.
    const lacking = await startPluginStack(taskQueue, { workerEnv: ringEnv('kc', { kc }), clientEnv, bundleCode });
    // Sent now, on a connection of its own that outlives the workers: it waits while tasks fail.
    const approver = await connectCodecClient(clientEnv);
    const approval = approver.client.workflow
      .getHandle(workflowId)
      .executeUpdate(approveUpdate, { args: [signDecision(keys.alice, workflowId, asked, 'approve', 'once the key is back')] });
    const failures = await waitUntil(async () => {
      const found = taskFailures(await rawHistory(lacking.raw, workflowId));
      return found.length > 0 && found;
    }, 'a failed workflow task on the worker without kw');
    expect(failures[0]).toContain('"kw"');
    expect(await reissuesOf(world, transferId)).toHaveLength(0);
    await lacking.close();

    const restored = await startPluginStack(taskQueue, { workerEnv: clientEnv, clientEnv, bundleCode });
    try {
      const ack = await approval;
      expect(ack.decision).toBe('approved');
      const result = await restored.client.workflow.getHandle(workflowId).result();
      expect(result.terminal.class).toBe('resolved');
      expect(await reissuesOf(world, transferId)).toHaveLength(1);
    } finally {
      await restored.close();
      await approver.close();
    }
  });
});

describe("the run's own input fails loudly when the worker lacks its key", () => {
  it('a worker without the key of the input fails the workflow task (not the run) naming it; with the key, the run goes on', async () => {
    const taskQueue = uniqueTaskQueue('quarantine-input');
    const transferId = uniqueCase('PX');
    await seedTransfer(world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const ki = newKey();
    const clientEnv = ringEnv('ki', { ki });
    const lacking = await startPluginStack(taskQueue, { workerEnv: ringEnv('ko', { ko: newKey() }), clientEnv, bundleCode });
    const handle = await startRun({ client: lacking.client, taskQueue }, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } }, HANDED_ON);
    const failures = await waitUntil(async () => {
      const found = taskFailures(await rawHistory(lacking.raw, handle.workflowId));
      return found.length > 0 && found;
    }, 'a failed workflow task on the worker without ki');
    expect(failures[0]).toContain(`the run's input is a payload of encoding "binary/encrypted" sealed with key "ki" (unknown-key)`);
    await lacking.close();

    const restored = await startPluginStack(taskQueue, { workerEnv: clientEnv, clientEnv, bundleCode });
    try {
      const view = restored.client.workflow.getHandle(handle.workflowId);
      await waitForRequest(view);
      const history = await rawHistory(restored.raw, handle.workflowId);
      expect(eventsOf(history).some((e) => e.workflowExecutionFailedEventAttributes)).toBe(false);
      await view.terminate('the test is done with it');
    } finally {
      await restored.close();
    }
  });
});
