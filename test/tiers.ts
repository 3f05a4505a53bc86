// `npm test`: every tier the README promises, and each tier's wall time at the end. The type
// check, lint and unit tier run beside the integration tier (a real Temporal dev server, world,
// Chromium, MCP servers, killed workers), not before it: measured with a CPU sampler, the
// integration tier leaves the machine idle about a quarter of its time (its tests wait on timers,
// servers and people), and the pure tiers fill that time. Their failures print as they come and
// fail the run at the end. The chaos run follows, with the machine to itself. Output streams as
// it comes; the table at the end gives each tier's wall time, so a suite that got slower says
// where. A stage with a failed tier stops the run (the first failure's exit code is the run's).
import { spawn } from 'node:child_process';

interface Tier {
  name: string;
  command: string;
  args: string[];
}

const npx = (...args: string[]) => ({ command: 'npx', args: ['--no-install', ...args] });

/** Stages run one after another; the tiers of a stage run side by side. */
const stages: Tier[][] = [
  [
    { name: 'integration', ...npx('vitest', 'run', '--project', 'integration') },
    { name: 'typecheck', command: 'npm', args: ['run', '--silent', 'typecheck'] },
    { name: 'lint', command: 'npm', args: ['run', '--silent', 'lint'] },
    { name: 'unit', ...npx('vitest', 'run', '--project', 'unit') },
  ],
  [{ name: 'chaos', ...npx('tsx', 'test/chaos/chaos.ts') }],
];

const suiteStarted = performance.now();

function run(tier: Tier): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(tier.command, tier.args, { stdio: 'inherit' });
    child.on('error', (err) => {
      process.stderr.write(`${tier.name}: could not start ${tier.command}: ${err.message}\n`);
      resolve(1);
    });
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const rows: Array<{ name: string; result: string; seconds: number }> = [];
let exitCode = 0;
for (const stage of stages) {
  if (exitCode !== 0) {
    for (const tier of stage) rows.push({ name: tier.name, result: 'not run', seconds: 0 });
    continue;
  }
  const finished = await Promise.all(
    stage.map(async (tier) => {
      process.stdout.write(`\n== ${tier.name}: ${tier.command} ${tier.args.join(' ')}\n`);
      const started = performance.now();
      const code = await run(tier);
      return { name: tier.name, code, seconds: (performance.now() - started) / 1000 };
    }),
  );
  for (const { name, code, seconds } of finished) {
    rows.push({ name, result: code === 0 ? 'passed' : `failed (exit ${code})`, seconds });
    if (code !== 0 && exitCode === 0) exitCode = code;
  }
}

const width = Math.max(...rows.map((r) => r.name.length));
const total = (performance.now() - suiteStarted) / 1000;
process.stdout.write(`\n${'tier'.padEnd(width)}  ${'result'.padEnd(16)}  wall\n`);
for (const r of rows) process.stdout.write(`${r.name.padEnd(width)}  ${r.result.padEnd(16)}  ${r.seconds.toFixed(1)} s\n`);
process.stdout.write(`${'all'.padEnd(width)}  ${(exitCode === 0 ? 'passed' : 'failed').padEnd(16)}  ${total.toFixed(1)} s\n`);
process.exit(exitCode);
