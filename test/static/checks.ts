// The static checks of `npm test` (the type check, then eslint and prettier) run side by side:
// each is one process that keeps one core busy for a minute or more, so on a two-core machine
// running them together roughly halves their wall time. Each one's output is printed whole when
// it ends (never interleaved), and the exit code is non-zero if either failed.
import { spawn } from 'node:child_process';

const checks = ['typecheck', 'lint'] as const;

function run(script: string): Promise<{ script: string; code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (err) => resolve({ script, code: 1, output: `${output}${String(err)}\n` }));
    child.on('close', (code) => resolve({ script, code: code ?? 1, output }));
  });
}

const results = await Promise.all(checks.map((script) => run(script)));
for (const { script, code, output } of results) {
  process.stdout.write(`> npm run ${script}: ${code === 0 ? 'passed' : `failed (exit ${code})`}\n${output}`);
}
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
