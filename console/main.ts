// `npm run console`: the operators' console in the foreground, on http://127.0.0.1:4200 (or
// AGENT_CONSOLE_PORT), over the Temporal server the CLI and the worker use (TEMPORAL_ADDRESS,
// TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS or TEMPORAL_PROFILE; by default the local dev
// server `npm run dev` starts). It never holds a private key: approvers sign in their browser.
// Ctrl-C (SIGINT) or SIGTERM stops it; exit 0.
import { AgentClient } from '../client/agent-client.js';
import { startConsole, type RunningConsole } from './server.js';

const DEFAULT_PORT = 4200;
const say = (line: string) => void process.stderr.write(`console: ${line}\n`);

function port(): number {
  const raw = process.env.AGENT_CONSOLE_PORT?.trim();
  if (!raw) return DEFAULT_PORT;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || value > 65_535) {
    say(`AGENT_CONSOLE_PORT must be a port number (1-65535), got '${raw}'`);
    process.exit(2);
  }
  return value;
}

async function main(): Promise<number> {
  const wanted = port();
  let agent: AgentClient;
  try {
    agent = await AgentClient.connect();
  } catch (err) {
    say(`${err instanceof Error ? err.message : String(err)} (is \`npm run dev\` running, or TEMPORAL_ADDRESS set?)`);
    return 1;
  }
  let running: RunningConsole;
  try {
    running = await startConsole({ agent, port: wanted, domains: ['payments', 'incidents', 'synthetic'] });
  } catch (err) {
    await agent.close();
    const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
    say(inUse ? `port ${wanted} is already in use on 127.0.0.1; stop whatever holds it, or set AGENT_CONSOLE_PORT` : String(err));
    return 1;
  }
  process.stdout.write(
    `Operators' console on ${running.url}  (runs: ${running.url}/, approval inbox: ${running.url}/inbox). Ctrl-C stops it.\nCONSOLE_READY\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await running.close();
  await agent.close();
  return 0;
}

process.exit(await main());
