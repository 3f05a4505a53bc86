#!/usr/bin/env node
// `npm run model:local`: runs run.ts (download, verify, install, serve) under tsx, the root
// project's TypeScript loader, so model-local's TypeScript needs no build step. Plain JavaScript
// only because the root package.json starts it with `node`.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
let tsx;
try {
  tsx = import.meta.resolve('tsx');
} catch {
  process.stderr.write('[model-local] tsx is not installed: run `npm ci` in the repository root first.\n');
  process.exit(1);
}
const child = spawn(process.execPath, ['--import', tsx, join(HERE, 'run.ts'), ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
