// The console in the foreground until Ctrl-C or SIGTERM, over an AgentClient already connected:
// shared by `npm run console` (console/main.ts, this repository's domains) and the package's
// `npx agent console` (client/commands/console.ts, any Temporal address), so both print the
// same ready line and stop the same way.
import type { AgentClient } from '../client/agent-client.js';
import { startConsole } from './server.js';

export const DEFAULT_CONSOLE_PORT = 4200;

/** A port number from text (`0` only where `zeroPicks`), or the words for why it is not one. */
export function consolePort(raw: string, source: string, zeroPicks = false): number | { error: string } {
  const value = Number(raw);
  const min = zeroPicks ? 0 : 1;
  if (!/^\d+$/.test(raw) || value < min || value > 65_535) return { error: `${source} must be a port number (${min}-65535), got '${raw}'` };
  return value;
}

/**
 * Serves the console on 127.0.0.1:`port` until SIGINT or SIGTERM, printing its address and
 * `CONSOLE_READY` once it answers. A port in use is a value, not a throw: the words to print.
 */
export async function serveConsole(agent: AgentClient, options: { port: number; domains: readonly string[] }): Promise<{ error: string } | undefined> {
  let running;
  try {
    running = await startConsole({ agent, port: options.port, domains: options.domains });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
      return { error: `port ${options.port} is already in use on 127.0.0.1; stop whatever holds it, or choose another port` };
    return { error: err instanceof Error ? err.message : String(err) };
  }
  process.stdout.write(
    `Operators' console on ${running.url}  (runs: ${running.url}/, approval inbox: ${running.url}/inbox). Ctrl-C stops it.\nCONSOLE_READY\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await running.close();
  return undefined;
}
