// The starter's script: start the run for a case, follow it, approve its one effect with your
// key when it asks, and print how it ended. `npm run case -- O-1001` (the default case);
// KEY_FILE names your key (default ./you.key, made by `npx agent keys generate`). Exit 0 only
// when the run resolved. An operator does the same by hand with `npx agent watch/approve`.
import { AgentClient, readKeyFile } from 'bounded-react-temporal/client';
import { orders } from './domain.js';

const caseId = process.argv[2] ?? 'O-1001';
const key = readKeyFile(process.env.KEY_FILE ?? 'you.key');
// TEMPORAL_* from the environment; the task queue from the domains, the same one the worker derives.
const agent = await AgentClient.connect({ domains: [orders] });
const run = await agent.start({ domain: 'orders', caseId, model: { adapter: 'rules' } });
console.log(`run ${run.runId} on task queue ${agent.taskQueue}`);
let resolved = false;
for await (const item of agent.watch(run.runId)) {
  // A run started earlier shows its old requests too: decide only the one still pending.
  if (item.type === 'approval_request' && (await agent.state(run.runId)).awaiting?.requestId === item.requestId) {
    console.log(`approval requested: ${item.tool} ${JSON.stringify(item.args)} (request ${item.requestId})`);
    const decision = await agent.approve(run.runId, item.requestId, key, { comment: 'duplicate order, checked' });
    console.log(`approved as ${decision.by}: ${decision.outcome}`);
  }
  if (item.type === 'terminal') {
    console.log(`outcome: ${item.class} (${item.reason})${item.detail ? ` ${item.detail}` : ''}`);
    resolved = item.class === 'resolved';
  }
}
await agent.close();
process.exit(resolved ? 0 : 1);
