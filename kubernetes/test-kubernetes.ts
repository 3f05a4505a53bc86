// `npm run test:kubernetes` (opt-in, not part of `npm test`): builds the control plane's
// binaries into .temporal/kubernetes/bin/ if they are missing (many minutes, once), then runs
// the tests in test/kubernetes/ with their own vitest config, whose global setup starts one
// control plane for the run. Arguments go to vitest (a file filter, `-t <name>`). The exit code
// is vitest's.
import { spawn } from 'node:child_process';
import { ensureBinaries } from './build.js';
import { projectRoot } from '../temporal-dev/paths.js';

const log = (m: string) => process.stderr.write(`[test:kubernetes] ${m}\n`);
const began = Date.now();
try {
  const build = await ensureBinaries(log);
  if (build.built) log(`built in ${build.seconds} s`);
} catch (err) {
  log(err instanceof Error ? err.message : String(err));
  process.exit(1);
}

const args = ['--no-install', 'vitest', 'run', '--config', 'test/kubernetes/vitest.config.ts', ...process.argv.slice(2)];
const child = spawn('npx', args, { cwd: projectRoot, stdio: 'inherit' });
// Ctrl-C reaches vitest too (same process group), which stops the control plane in its
// teardown; a SIGTERM sent to this process alone is passed on. Either way we wait for vitest.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => child.kill('SIGTERM'));
const code = await new Promise<number>((resolve) => {
  child.once('error', (err) => {
    log(`could not start vitest: ${err.message}`);
    resolve(1);
  });
  child.once('close', (status, signal) => resolve(status ?? (signal ? 1 : 0)));
});
log(`${Math.round((Date.now() - began) / 1000)} s in all`);
process.exit(code);
