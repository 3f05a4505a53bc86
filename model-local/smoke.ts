// Two checks of a local model setup, for by hand:
// 1. the real node-llama-cpp (when installed in model-local/) still has the types the server is
//    written against: `tsc -p model-local/tsconfig.json`, which compiles llama-api.check.ts;
// 2. one chat request with a payments tool against a running server, printing reply and latency.
//   npx tsx model-local/smoke.ts [http://127.0.0.1:8088/v1] [--choice auto|required|none]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChatCompletion } from './wire.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const base = (args.find((a) => a.startsWith('http')) ?? `http://127.0.0.1:${process.env.MODEL_PORT || 8088}/v1`).replace(/\/+$/, '');
const choiceAt = args.indexOf('--choice');
const toolChoice = choiceAt >= 0 ? args[choiceAt + 1] : 'required';

if (existsSync(join(HERE, 'node_modules', 'node-llama-cpp'))) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', join(HERE, 'tsconfig.json')], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error('node-llama-cpp no longer has the types llama-api.ts describes (see above)');
    process.exit(1);
  }
  console.log('node-llama-cpp types: as llama-api.ts describes them');
} else {
  console.log('node-llama-cpp is not installed in model-local/: its types were not checked');
}

const body = {
  model: 'local',
  messages: [
    {
      role: 'system',
      content:
        'You are the planning half of a bounded agent working one payments case. You only propose the next step, by calling functions. Never answer in plain text.',
    },
    { role: 'user', content: 'Transfer PX-1 left the account but never arrived. Establish its true status: read the ledger first.' },
  ],
  tools: [
    {
      type: 'function',
      function: {
        name: 'read_ledger',
        description: 'Read the authoritative ledger entry of a transfer. [read-only]',
        parameters: { type: 'object', properties: { transferId: { type: 'string' } }, required: ['transferId'] },
      },
    },
    {
      type: 'function',
      function: {
        name: 'escalate',
        description: 'Hand the case to a human.',
        parameters: { type: 'object', properties: { reason: { type: 'string' } }, required: ['reason'] },
      },
    },
  ],
  tool_choice: toolChoice,
  max_tokens: 128,
};

const started = Date.now();
const res = await fetch(`${base}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const ms = Date.now() - started;
const reply = (await res.json()) as Partial<ChatCompletion>;
console.log(JSON.stringify(reply, null, 2));
console.log(`HTTP ${res.status} in ${ms} ms`);
const call = reply.choices?.[0]?.message.tool_calls?.[0];
if (!res.ok || (toolChoice === 'required' && !call)) process.exit(1);
