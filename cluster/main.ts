// `npm run cluster -- build|start|stop|status`: the multi-service cluster for a person at a
// shell. `start` returns once the cluster serves and leaves it running (its pids are in
// .temporal/cluster/data/state.json); `stop` ends those pids; the data survives a stop, so runs
// started on it are there after the next start.
import { answers } from '../temporal-dev/target.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureBinaries } from './build.js';
import { runningProcesses, startCluster, stopCluster } from './cluster.js';
import { SERVICES } from './config.js';
import { defaultDataDir, TEMPORAL_SERVER_VERSION } from './paths.js';
import { isRunning } from './processes.js';
import { readState } from './state.js';

const log = (m: string) => process.stderr.write(`[cluster] ${m}\n`);
const command = process.argv[2];

try {
  switch (command) {
    case 'build': {
      const { built, seconds } = await ensureBinaries(log);
      process.stdout.write(
        built ? `built Temporal server ${TEMPORAL_SERVER_VERSION} in ${seconds} s\n` : `Temporal server ${TEMPORAL_SERVER_VERSION} is already built\n`,
      );
      break;
    }
    case 'start': {
      const cluster = await startCluster({ dir: defaultDataDir, log, outliveThisProcess: true });
      process.stdout.write(`Temporal cluster: ${cluster.address} (namespace ${cluster.namespace})\n`);
      process.stdout.write(`export TEMPORAL_ADDRESS=${cluster.address}   # then npm run worker, npm run cli, ...\n`);
      process.stdout.write('npm run cluster -- stop ends it.\n');
      break;
    }
    case 'stop': {
      const state = readState(defaultDataDir);
      if (!state) {
        process.stdout.write('no cluster is running\n');
        break;
      }
      await stopCluster(state, log);
      process.stdout.write('cluster stopped\n');
      break;
    }
    case 'status': {
      const state = readState(defaultDataDir);
      if (!state || runningProcesses(state).length === 0) {
        process.stdout.write('no cluster is running\n');
        process.exitCode = 1;
        break;
      }
      const answers = await frontendAnswers(state.address);
      process.stdout.write(
        `cluster ${state.serverVersion} at ${state.address} (namespace ${state.namespace}), started ${state.startedAt}; frontend ${answers ? 'answers' : 'does not answer'}\n`,
      );
      const rows = [['postgres', state.postgres] as const, ...SERVICES.map((s) => [s, state.services[s]] as const)];
      for (const [name, p] of rows)
        process.stdout.write(`  ${name.padEnd(9)} pid ${String(p.pid).padEnd(8)} ${isRunning(p.pid, p.program) ? 'running' : 'NOT RUNNING'}\n`);
      if (!answers || runningProcesses(state).length < rows.length) process.exitCode = 1;
      break;
    }
    default:
      process.stderr.write('usage: npm run cluster -- build|start|stop|status\n');
      process.exitCode = 2;
  }
} catch (err) {
  process.stderr.write(`cluster: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}

async function frontendAnswers(address: string): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await answers(address)) return true;
    await sleep(500);
  }
  return false;
}
