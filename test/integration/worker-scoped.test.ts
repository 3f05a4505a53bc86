// The engine's schemas are built once per worker, not once per run (workflows/worker-scoped.ts):
// runs on one real worker find the cache the first run filled, and the shared schemas keep
// parsing correctly, accepting and refusing, for every run after it.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { bundleWorkflows } from '../../worker/bundle.js';
import { uniqueTaskQueue, useClient } from '../support/temporal.js';

type Probe = { builtAt: number; runStateCached: boolean; parsed: boolean };
const probePath = fileURLToPath(new URL('../fixtures/worker-scoped-workflows.ts', import.meta.url));

describe('schemas built once per worker', () => {
  const client = useClient();

  it("every run after the first uses the first run's schemas, and they still parse", async () => {
    const workflowBundle = await bundleWorkflows(probePath);
    const taskQueue = uniqueTaskQueue('worker-scoped');
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const worker = await Worker.create({ connection, namespace: inject('temporalNamespace'), taskQueue, workflowBundle });
    const good = { type: 'call', calls: [{ tool: 'read_counter', args: { n: 1 } }] };
    const bad = { type: 'call', calls: [] };
    const run = (reply: unknown) =>
      client().workflow.execute<(reply: unknown) => Promise<Probe>>('workerScopedProbe', {
        taskQueue,
        workflowId: `worker-scoped-${randomUUID()}`,
        args: [reply],
      });
    const results = await worker.runUntil(async () => {
      const first = await run(good);
      // Several at once on the same worker, all started after the first run ended: had any of
      // them built its own cache entry, it would carry its own (later) workflow time.
      const rest = await Promise.all([run(bad), run(good), run(bad), run(good)]);
      return [first, ...rest];
    });
    await connection.close();

    expect(new Set(results.map((r) => r.builtAt)).size).toBe(1);
    expect(results.every((r) => r.runStateCached)).toBe(true);
    expect(results.map((r) => r.parsed)).toEqual([true, false, true, false, true]);
  });
});
