// `npm run demo`: provisions a Temporal dev server (or uses TEMPORAL_ADDRESS), starts the
// simulated systems of record and a worker, runs every scenario with the `rules` model (two
// use a scripted one to show the guards), prints each run and the Web UI URL.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { WorldClient } from '../domains/world/client.js';
import { startWorld } from '../domains/world/process.js';
import { freePort } from '../temporal-dev/dev-server.js';
import { stderrLog } from '../temporal-dev/log.js';
import { devDatabaseFile, projectRoot } from '../temporal-dev/paths.js';
import { useTemporal } from '../temporal-dev/target.js';
import { createAgentWorker } from '../worker/create-worker.js';
import { renderRun } from './render.js';
import { runScenario } from './run-scenario.js';
import { scenarios } from './scenarios.js';

const { values } = parseArgs({
  options: { json: { type: 'boolean', default: false }, 'keep-server': { type: 'boolean', default: false }, only: { type: 'string' } },
  strict: true,
});
Runtime.install({ logger: new DefaultLogger('WARN') });

const out = (line: string) => process.stdout.write(`${line}\n`);
const preferred = async (port: number) => ((await isFree(port)) ? port : freePort());
const target = await useTemporal({
  port: await preferred(7233),
  uiPort: await preferred(8233),
  dbFile: devDatabaseFile,
  log: stderrLog,
});
const world = await startWorld({ dbPath: join(projectRoot, '.world', 'demo.db') });
const connection = await Connection.connect(target.connectionOptions);
const client = new Client({ connection, namespace: target.namespace });
const workerConnection = await NativeConnection.connect(target.connectionOptions);
const taskQueue = 'agent-demo';
const worker = await createAgentWorker({
  connection: workerConnection,
  namespace: target.namespace,
  taskQueue,
  activities: { worldUrl: world.url, blobDir: join(projectRoot, '.world', 'blobs'), toolTimeoutMs: 1_000 },
});

let failures = 0;
const stamp = Date.now().toString(36);
const chosen = scenarios.filter((s) => !values.only || s.name === values.only);
await worker.runUntil(async () => {
  const outcomes = await Promise.all(chosen.map((s) => runScenario(client, new WorldClient(world.url), taskQueue, s, stamp)));
  for (const o of outcomes) {
    const t = o.result.terminal;
    if (t.class !== o.scenario.expected) failures++;
    if (values.json) {
      out(JSON.stringify({ run: o.workflowId, scenario: `${o.scenario.domain}/${o.scenario.name}`, terminal: t.class, reason: t.reason, detail: t.detail, turns: o.result.turns, effects: o.result.effects.length }));
      continue;
    }
    out('');
    out(`${o.scenario.domain}/${o.scenario.name}: ${o.scenario.story}`);
    out(`  run ${o.workflowId}  model=${o.scenario.model(o.view.state.caseId).adapter}`);
    for (const line of renderRun(o.view.state)) out(line);
  }
});

if (!values.json) {
  out('');
  out(`${chosen.length - failures}/${chosen.length} scenarios ended as expected.`);
  if (target.uiUrl) out(`Web UI: ${target.uiUrl}/namespaces/${target.namespace}/workflows${values['keep-server'] ? '' : ' (run `npm run dev:server` to browse these runs again; state is in .temporal/dev.sqlite)'}`);
}
await workerConnection.close();
await connection.close();
await world.stop();
if (values['keep-server'] && target.startedHere) {
  stderrLog('server kept running; Ctrl-C stops it');
  process.on('SIGINT', () => void target.stop().then(() => process.exit(failures ? 1 : 0)));
} else {
  await target.stop();
  process.exit(failures ? 1 : 0);
}

async function isFree(port: number): Promise<boolean> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}
