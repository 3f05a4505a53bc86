// `npm test`: every tier the README promises, cheapest first, so a mistake a tier can see is
// reported before the slower ones start: the static checks (type check, lint), the unit tier (pure
// code, no server: `npm run test:unit` alone), the integration tier (a real Temporal dev server,
// world, Chromium, MCP servers, killed workers) and the chaos run. Each tier's output streams as it
// runs; the table at the end gives each tier's wall time, so a suite that got slower says where.
// The first tier that fails stops the run (its exit code is the run's).
import { spawn } from 'node:child_process';

interface Tier {
  name: string;
  command: string;
  args: string[];
}

const npx = (...args: string[]) => ({ command: 'npx', args: ['--no-install', ...args] });

const tiers: Tier[] = [
  { name: 'static checks', ...npx('tsx', 'test/static/checks.ts') },
  { name: 'unit', ...npx('vitest', 'run', '--project', 'unit') },
  { name: 'integration', ...npx('vitest', 'run', '--project', 'integration') },
  { name: 'chaos', ...npx('tsx', 'test/chaos/chaos.ts') },
];

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
for (const tier of tiers) {
  process.stdout.write(`\n== ${tier.name}: ${tier.command} ${tier.args.join(' ')}\n`);
  const started = performance.now();
  const code = await run(tier);
  rows.push({ name: tier.name, result: code === 0 ? 'passed' : `failed (exit ${code})`, seconds: (performance.now() - started) / 1000 });
  if (code !== 0) {
    exitCode = code;
    break;
  }
}
for (const tier of tiers.slice(rows.length)) rows.push({ name: tier.name, result: 'not run', seconds: 0 });

const width = Math.max(...rows.map((r) => r.name.length));
const total = rows.reduce((sum, r) => sum + r.seconds, 0);
process.stdout.write(`\n${'tier'.padEnd(width)}  ${'result'.padEnd(16)}  wall\n`);
for (const r of rows) process.stdout.write(`${r.name.padEnd(width)}  ${r.result.padEnd(16)}  ${r.seconds.toFixed(1)} s\n`);
process.stdout.write(`${'all'.padEnd(width)}  ${(exitCode === 0 ? 'passed' : 'failed').padEnd(16)}  ${total.toFixed(1)} s\n`);
process.exit(exitCode);
