// `npm run console`: the operators' console in the foreground, on http://127.0.0.1:4200 (or
// AGENT_CONSOLE_PORT), over the Temporal server the CLI and the worker use (TEMPORAL_ADDRESS,
// TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS or TEMPORAL_PROFILE; by default the local dev
// server `npm run dev` starts). It never holds a private key: approvers sign in their browser.
// Ctrl-C (SIGINT) or SIGTERM stops it; exit 0. The package's `npx agent console` serves the
// same console (console/serve.ts) without this repository's domains. Connected with the
// examples' domains: their runs are the ones on the queue their worker polls (AGENT_TASK_QUEUE,
// else agents-<domains>), and their contracts say what a card may claim is read again.
import { AgentClient } from '../client/agent-client.js';
import { incidents } from '../domains/incidents/domain.js';
import { payments } from '../domains/payments/domain.js';
import { synthetic } from '../domains/synthetic/domain.js';
import { consolePort, DEFAULT_CONSOLE_PORT, serveConsole } from './serve.js';

const say = (line: string) => void process.stderr.write(`console: ${line}\n`);

async function main(): Promise<number> {
  const raw = process.env.AGENT_CONSOLE_PORT?.trim();
  const wanted = raw ? consolePort(raw, 'AGENT_CONSOLE_PORT') : DEFAULT_CONSOLE_PORT;
  if (typeof wanted !== 'number') {
    say(wanted.error);
    return 2;
  }
  let agent: AgentClient;
  try {
    agent = await AgentClient.connect({ domains: [payments, incidents, synthetic] });
  } catch (err) {
    say(`${err instanceof Error ? err.message : String(err)} (is \`npm run dev\` running, or TEMPORAL_ADDRESS set?)`);
    return 1;
  }
  const failed = await serveConsole(agent, { port: wanted, domains: ['payments', 'incidents', 'synthetic'] });
  await agent.close();
  if (!failed) return 0;
  say(failed.error.replace('choose another port', 'set AGENT_CONSOLE_PORT'));
  return 1;
}

process.exit(await main());
