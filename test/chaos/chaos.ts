// `npm run chaos`: the chaos loop (run-chaos.ts) on a dev server started here (or the one
// TEMPORAL_ADDRESS names): many concurrent runs with effects while any of several worker processes
// on one queue is SIGKILLed and restarted at random moments. Its last stdout line is
// machine-checked by CI; the exit code is 0 only when no effect was duplicated, no run was lost,
// every run ended and the kills were reached.
import { chaosArgs } from './chaos-args.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stderrLog } from '../../temporal-dev/log.js';
import { useTemporal } from '../../temporal-dev/target.js';
import { chaosLine, runChaos } from './run-chaos.js';

const numbers = chaosArgs('chaos', 420);

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
