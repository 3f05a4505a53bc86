// An OpenAI-compatible /v1/chat/completions over node-llama-cpp, on 127.0.0.1 only, CPU only:
//
//   npx tsx model-local/server.ts [--small] [--port 8088] [--threads 1] [--model FILE]
//
// (`npm run model:local` downloads and verifies the model and installs node-llama-cpp first.)
// This file only wires the parts together: options.ts (flags and MODEL_*), session.ts (the model
// and one completion), http.ts (the routes), wire.ts (the request and reply shapes).
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chatServer } from './http.js';
import { loadNodeLlamaCpp } from './llama-api.js';
import { OptionError, serverOptions } from './options.js';
import { openSession } from './session.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const log = (msg: string) => process.stderr.write(`[model-local] ${msg}\n`);

function exit(code: number, message: string): never {
  log(message);
  process.exit(code);
}

let options;
try {
  options = serverOptions(process.argv.slice(2), process.env);
} catch (err) {
  exit(2, err instanceof OptionError || err instanceof TypeError ? err.message : String(err));
}
if (!existsSync(join(HERE, 'node_modules', 'node-llama-cpp'))) {
  exit(1, 'node-llama-cpp is not installed in model-local/: run `npm run model:local` (or `npm ci --prefix model-local`) first.');
}
if (!existsSync(options.modelFile)) {
  const verify = `npx tsx model-local/verify.ts${options.variant.id.endsWith('0.5b') ? ' --small' : ''}`;
  exit(1, `no model at ${options.modelFile}: run \`${verify}\` first (npm run model:local does both).`);
}

const session = await openSession(await loadNodeLlamaCpp(), {
  modelFile: options.modelFile,
  modelId: options.modelId,
  variantId: options.variant.id,
  threads: options.threads,
  contextSize: options.contextSize,
  maxCalls: options.maxCalls,
  debugPrompt: options.debugPrompt,
  log,
});
const server = chatServer({ session, modelId: options.modelId, log });
server.listen(options.port, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`MODEL_READY http://127.0.0.1:${port}/v1\n`);
});

const shutdown = async () => {
  server.close();
  await session.dispose().catch(() => undefined);
  process.exit(0);
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutdown());
