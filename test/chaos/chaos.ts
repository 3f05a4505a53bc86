// `npm run chaos`: the chaos loop (run-chaos.ts) on a dev server started here (or the one
// TEMPORAL_ADDRESS names): many concurrent runs with effects while any of several worker processes
// on one queue is SIGKILLed and restarted at random moments. Its last stdout line is
// machine-checked by CI; the exit code is 0 only when no effect was duplicated, no run was lost,
// every run ended and the kills were reached.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stderrLog } from '../../temporal-dev/log.js';
import { useTemporal } from '../../temporal-dev/target.js';
import { chaosLine, runChaos } from './run-chaos.js';

const { values } = parseArgs({
  options: {
    workers: { type: 'string', default: '3' },
    runs: { type: 'string', default: '32' },
    kills: { type: 'string', default: '10' },
    seed: { type: 'string', default: String(Date.now() % 100_000) },
    'timeout-s': { type: 'string', default: '420' },
  },
  strict: true,
});
const numbers = {
  workers: Number(values.workers),
  runs: Number(values.runs),
  kills: Number(values.kills),
  seed: Number(values.seed),
  timeoutS: Number(values['timeout-s']),
};
for (const [name, n] of Object.entries(numbers)) {
  if (!Number.isInteger(n) || n < 0 || (name === 'workers' && n < 1)) {
    process.stderr.write(`chaos: --${name === 'timeoutS' ? 'timeout-s' : name} must be a whole number${name === 'workers' ? ' of at least 1' : ''}\n`);
    process.exit(2);
  }
}

const scratch = mkdtempSync(join(tmpdir(), 'chaos-server-'));
const target = await useTemporal({ headless: true, dbFile: join(scratch, 'temporal.sqlite'), log: stderrLog });
let passed = false;
try {
  const figures = await runChaos({ ...numbers, temporal: { address: target.address, namespace: target.namespace } });
  process.stderr.write(`[chaos] ${figures.seconds} s in the loop\n`);
  process.stdout.write(`${chaosLine(figures)}\n`);
  passed = figures.passed;
} finally {
  await target.stop();
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(passed ? 0 : 1);
