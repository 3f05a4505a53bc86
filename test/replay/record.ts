// `npm run record-histories`: runs every demo scenario, plus effects whose replies are lost
// (reconciled by readback), on a fresh dev server and saves their event histories as fixtures.
// `npm test` replays them against the current workflow code, so a change that would break
// runs already in flight fails CI. Re-record only on purpose (see test/replay/README.md).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startLocalStack } from '../../demo/local-stack.js';
import { runScenario } from '../../demo/run-scenario.js';
import { directoryEntry, generateKey } from '../../client/sign.js';
import { scenarios, type Scenario } from '../../demo/scenarios.js';
import { WorldClient } from '../../domains/world/client.js';
import { stderrLog } from '../../temporal-dev/log.js';
import type { Shape } from '../../workflows/shape.js';

Runtime.install({ logger: new DefaultLogger('WARN') });
const outDir = fileURLToPath(new URL('./histories/', import.meta.url));

// Beyond the demo: effects that commit and then lose their reply, settled by readback.
const lostReplies: Scenario[] = (['commit_then_500', 'commit_then_drop'] as const).map((mode) => ({
  name: `restart-${mode.replaceAll('_', '-')}`,
  domain: 'incidents',
  story: `the restart commits, then ${mode}; the run reads it back by key`,
  seed: async (w, id) => {
    await w.seedIncident({ caseId: id, faulty: { service: 'cache', fault: 'memory' } });
    return w.injectFault({ op: 'incidents.restart', key: id, mode });
  },
  model: () => ({ adapter: 'rules' }),
  expected: 'resolved',
}));

const scratch = mkdtempSync(join(tmpdir(), 'record-'));
const keys = { 'alice@ops': generateKey('alice@ops') };
const { client, world, worker, taskQueue, close } = await startLocalStack({
  server: { headless: true, dbFile: join(scratch, 'temporal.sqlite'), log: stderrLog },
  worldDb: join(scratch, 'world.sqlite'),
  blobDir: join(scratch, 'blobs'),
  taskQueue: 'record-histories',
  approvers: { approvers: [directoryEntry(keys['alice@ops'], ['payments-approver'])] },
});

// Every scenario, then the shaped runs (into histories/shapes/<shape>/); `--shapes` records only
// the shaped ones.
const shapesOnly = process.argv.includes('--shapes');
const shaped = ['stale-replica', 'sources-conflict', 'failed-transfer-reissue', 'memory-exhaustion', 'bad-deploy'];

/** Runs one scenario and saves its history, named by workflow id: replay must run under the same id (it is part of the run's state). */
async function record(scenario: Scenario, dir: string, stamp: string, options: { shape?: Shape } = {}): Promise<void> {
  const outcome = await runScenario(client, new WorldClient(world.url), taskQueue, scenario, stamp, keys, options);
  const history = await client.workflow.getHandle(outcome.workflowId).fetchHistory();
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${outcome.workflowId}.json`);
  writeFileSync(file, historyToJSON(history));
  stderrLog(`recorded ${file} (${history.events?.length ?? 0} events, ${outcome.result.terminal.class})`);
}

await worker.runUntil(async () => {
  if (!shapesOnly) for (const scenario of [...scenarios, ...lostReplies]) await record(scenario, outDir, 'fixture');
  for (const shape of ['workflow', 'hybrid', 'react', 'plan'] as const)
    for (const scenario of scenarios.filter((s) => shaped.includes(s.name)))
      await record(scenario, join(outDir, 'shapes', shape), `fixture-${shape}`, { shape });
});
await close();
rmSync(scratch, { recursive: true, force: true });
