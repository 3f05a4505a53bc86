#!/usr/bin/env node
// One chat request with a payments tool against a running server, printing the reply and latency:
//   node model-local/smoke.mjs [http://127.0.0.1:8088/v1] [--choice auto|required|none]
const base = (process.argv.slice(2).find((a) => a.startsWith('http')) ?? `http://127.0.0.1:${process.env.MODEL_PORT || 8088}/v1`).replace(/\/+$/, '');
const choiceAt = process.argv.indexOf('--choice');
const toolChoice = choiceAt > 0 ? process.argv[choiceAt + 1] : 'required';

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
const reply = await res.json();
console.log(JSON.stringify(reply, null, 2));
console.log(`HTTP ${res.status} in ${ms} ms`);
const call = reply.choices?.[0]?.message?.tool_calls?.[0];
if (!res.ok || (toolChoice === 'required' && !call)) process.exit(1);
