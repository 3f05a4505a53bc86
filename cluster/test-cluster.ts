// `npm run test:cluster` (opt-in, not part of `npm test`): the chaos run on a real multi-service
// cluster. It builds the server if needed, starts a fresh cluster (PostgreSQL, 4 history shards,
// frontend, history, matching and worker as separate processes), and runs the chaos with 3
// workers while, between worker kills, the history or the matching service is SIGKILLed and
// started again, and the engine's `list` is asked while the service is down. Then `list` must
// show every run as terminal. The exit code is 0 only when no effect was duplicated, no run was
// lost, every run ended, both services were restarted, `list` answered in every outage and
// caught up afterwards; the last stdout line is the chaos line plus the cluster's.
import { chaosArgs } from '../test/chaos/chaos-args.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../client/agent-client.js';
import { chaosLine, runChaos } from '../test/chaos/run-chaos.js';
import { startCluster } from './cluster.js';
import { ensureBinaries } from './build.js';
import { HISTORY_SHARDS, type ServiceName } from './config.js';
import { checkList } from './list-check.js';
import { TEMPORAL_SERVER_VERSION } from './paths.js';

const numbers = chaosArgs('test:cluster', 600);
// Disruptions come every other worker kill; with fewer than 4 kills one of the two services
// would never be restarted, and the run would not test what it says.
if (numbers.kills < 4) {
  process.stderr.write('test:cluster: --kills must be at least 4 (history and matching are each restarted every fourth kill)\n');
  process.exit(2);
}

const log = (m: string) => process.stderr.write(`[test:cluster] ${m}\n`);
// Ctrl-C ends the process through its exit hooks, and startCluster's hook SIGKILLs the cluster.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
const began = Date.now();
const build = await ensureBinaries(log);
const cluster = await startCluster({ log });
log(`cluster up at ${cluster.address} in ${Math.round((Date.now() - began) / 1000)} s (build ${build.built ? `${build.seconds} s` : 'cached'})`);

const restarts: Record<ServiceName, number> = { history: 0, matching: 0, frontend: 0, worker: 0 };
// `list` reads the visibility database through the frontend alone: it should answer while
// history or matching is down. Asked once in every outage; each answer is counted.
const outageLists = { asked: 0, answered: 0 };
let passed = false;
let line = '';
const connection = await Connection.connect({ address: cluster.address });
try {
  const agent = new AgentClient({ client: new Client({ connection, namespace: cluster.namespace }), taskQueue: 'unused-for-list' });
  const figures = await runChaos({
    ...numbers,
    temporal: { address: cluster.address, namespace: cluster.namespace },
    // History and matching in turn, each down for 1 to 4 s: long enough that workflow and
    // activity tasks, Updates and queries hit a missing service, short of any timeout the
    // engine relies on.
    disrupt: async (random, chaosLog) => {
      const service: ServiceName = (restarts.history + restarts.matching) % 2 === 0 ? 'history' : 'matching';
      const before = cluster.pids()[service];
      await cluster.kill(service);
      const downMs = 1_000 + Math.round(random() * 3_000);
      outageLists.asked++;
      const [, rows] = await Promise.all([sleep(downMs), agent.list({ limit: 5 }).catch((err: unknown) => err as Error)]);
      if (Array.isArray(rows)) outageLists.answered++;
      else chaosLog(`list did not answer with ${service} down: ${rows.message}`);
      await cluster.restart(service);
      restarts[service]++;
      chaosLog(`${service} SIGKILLed (pid ${before}), down ${downMs} ms, restarted as pid ${cluster.pids()[service]}`);
    },
  });
  log(
    `${figures.seconds} s in the chaos loop, ${figures.disruptions} service restarts; list answered ${outageLists.answered} of ${outageLists.asked} times with a service down`,
  );

  const listed = await checkList(agent, figures.terminal);
  log(`list showed ${listed.listed}/${listed.expected} runs as terminal after waiting ${listed.waitedMs} ms for visibility`);
  for (const r of listed.notCompleted) log(`listed but not completed: ${r}`);
  passed =
    figures.passed &&
    restarts.history > 0 &&
    restarts.matching > 0 &&
    listed.listed === figures.terminal &&
    listed.notCompleted.length === 0 &&
    outageLists.answered === outageLists.asked;
  line = `${chaosLine(figures)} cluster=${TEMPORAL_SERVER_VERSION} shards=${HISTORY_SHARDS} history_restarts=${restarts.history} matching_restarts=${restarts.matching} listed=${listed.listed}/${figures.terminal} list_in_outage=${outageLists.answered}/${outageLists.asked}`;
} finally {
  await connection.close();
  await cluster.stop();
}
log(`${Math.round((Date.now() - began) / 1000)} s in all`);
process.stdout.write(`${line}\n`);
process.exit(passed ? 0 : 1);
