// The Temporal server itself goes away in the middle of runs (its SQLite file stays) and comes
// back on the same port: every run finishes, and no effect is duplicated.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { WorldClient } from '../../domains/world/client.js';
import { startDevServer, type DevServer } from '../../temporal-dev/dev-server.js';
import { freePort } from '../../temporal-dev/ports.js';
import { quietLog } from '../../temporal-dev/log.js';
import type { WorkerProcess } from '../support/worker-process.js';
import { agentWorkflow } from '../../domains/workflows.js';
import { uniqueCase } from '../support/agent.js';
import { spawnWorker } from '../support/crash.js';
import { seedIncident } from '../../domains/world/seeds.js';
import { uniqueTaskQueue } from '../support/temporal.js';

describe('Temporal server restart with its SQLite file', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'server-restart-'));
  const dbFile = join(scratch, 'temporal.sqlite');
  let server: DevServer | undefined;
  let worker: WorkerProcess | undefined;
  afterAll(async () => {
    await worker?.stop();
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('runs started before the outage finish after it, each with one effect', async () => {
    const port = await freePort();
    server = await startDevServer({ port, headless: true, dbFile, log: quietLog });
    const world = new WorldClient(inject('worldUrl'));
    const taskQueue = uniqueTaskQueue('server-restart');
    worker = await spawnWorker(taskQueue, server.address);

    const connect = async () => {
      const connection = await Connection.connect({ address: server?.address ?? '' });
      return { connection, client: new Client({ connection }) };
    };
    let { connection, client } = await connect();
    const cases = Array.from({ length: 4 }, () => uniqueCase('INC'));
    for (const caseId of cases) {
      await seedIncident(world, caseId);
      await client.workflow.start(agentWorkflow, {
        taskQueue,
        workflowId: `incidents-${caseId}`,
        args: [{ run: { domain: 'incidents', caseId, model: { adapter: 'rules', latencyMs: 700 } } }],
      });
    }
    await new Promise((r) => setTimeout(r, 2_500));
    // The outage must hit runs in flight, not finished ones.
    for (const caseId of cases) {
      expect((await client.workflow.getHandle(`incidents-${caseId}`).describe()).status.name).toBe('RUNNING');
    }
    await connection.close();
    await server.stop();
    await new Promise((r) => setTimeout(r, 1_500));
    server = await startDevServer({ port, headless: true, dbFile, log: quietLog });

    ({ connection, client } = await connect());
    const results = await Promise.all(cases.map((caseId) => client.workflow.getHandle(`incidents-${caseId}`).result()));
    await connection.close();
    expect(results.map((r) => r.terminal.class)).toEqual(cases.map(() => 'resolved'));
    for (const caseId of cases) {
      expect(await world.effects({ key: caseId })).toHaveLength(1);
    }
  });
});
