// A team's own worker with the engine as a plugin, sealing payloads, runs every demo scenario to
// the terminal the demo expects; what the server stores of each run holds none of the case's
// data in clear (the case ids are workflow ids, which Temporal keeps in clear by design, so the
// search is for what the world said about each case).
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { directoryEntry, generateKey } from '../../client/sign.js';
import { runScenario, type DemoKeys } from '../../demo/run-scenario.js';
import { scenarios } from '../../demo/scenarios.js';
import { implementations } from '../../domains/implementations.js';
import { WorldClient } from '../../domains/world/client.js';
import { agentCodecPlugin } from '../../worker/codec-plugin.js';
import { agentPlugin } from '../../worker/plugin.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { converterFor, encodingOf, historyBytes, newKey, payloadsOf, rawHistory, ringEnv, writtenInClear } from '../support/codec.js';

describe('the demo scenarios on a team worker with the plugin and a payload codec', () => {
  const taskQueue = uniqueTaskQueue('team-sealed');
  const world = new WorldClient(inject('worldUrl'));
  const converter = converterFor(ringEnv('k1', { k1: newKey() }));
  const keys: DemoKeys = { 'alice@ops': generateKey('alice@ops') };
  let nativeConnection: NativeConnection;
  let connection: Connection;
  let client: Client;
  let raw: Client;
  let worker: Worker;
  let running: Promise<void>;

  beforeAll(async () => {
    nativeConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
    connection = await Connection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection, namespace: inject('temporalNamespace'), dataConverter: converter });
    raw = new Client({ connection, namespace: inject('temporalNamespace') });
    // The team's own Worker.create: their connection, queue, identity and bundle; the engine comes in as a plugin.
    worker = await Worker.create({
      connection: nativeConnection,
      namespace: inject('temporalNamespace'),
      taskQueue,
      identity: 'team-worker-1',
      workflowBundle: { codePath: inject('workflowBundlePath') },
      plugins: [
        agentCodecPlugin(converter.payloadCodecs ?? []),
        agentPlugin({
          implementations,
          deps: { world },
          blobDir: join(tmpdir(), 'agent-test-blobs'),
          approvers: { approvers: [directoryEntry(keys['alice@ops']!, ['payments-approver'])] },
        }),
      ],
    });
    running = worker.run();
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await nativeConnection?.close();
    await connection?.close();
  });

  it('every scenario ends as expected, and no raw history holds what the world said in clear', async () => {
    const stamp = `sealed${Date.now().toString(36)}`;
    const outcomes = await Promise.all(scenarios.map((s) => runScenario(client, world, taskQueue, s, stamp, keys)));
    expect(outcomes.map((o) => `${o.scenario.name}: ${o.result.terminal.class}`)).toEqual(scenarios.map((s) => `${s.name}: ${s.expected}`));
    let searched = 0;
    for (const outcome of outcomes) {
      const history = await rawHistory(raw, outcome.workflowId);
      const bytes = historyBytes(history);
      // What the run saw of the world (each fact value and quoted line longer than a word) is not in the stored bytes.
      const seen = outcome.view.state.evidence
        .flatMap((e) => [...Object.values(e.facts).map(String), ...e.quoted])
        .filter((v) => v.length >= 12 && !v.includes(outcome.view.state.caseId));
      searched += seen.length;
      for (const value of seen) expect(bytes.includes(value), `${outcome.scenario.name}: "${value}" in the raw history`).toBe(false);
      expect(bytes.includes(outcome.view.state.goal.slice(0, 60)), `${outcome.scenario.name}: the goal in clear`).toBe(false);
      const unsealed = payloadsOf(history).filter((p) => !writtenInClear(p) && encodingOf(p.payload) !== 'binary/encrypted');
      expect(
        unsealed.map((p) => p.path),
        outcome.scenario.name,
      ).toEqual([]);
    }
    // The search had something to find: what the world said, read back through the codec.
    expect(searched).toBeGreaterThan(10);
  });
});
