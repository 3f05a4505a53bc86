// `npm run dev:server`: a Temporal dev server with its Web UI in the foreground, for a person.
// State lives in .temporal/dev.sqlite, shared with `npm run demo`, so demo runs stay visible.
import { parseArgs } from 'node:util';
import { DevDatabaseHeldError } from './db-lock.js';
import { startDevServer } from './dev-server.js';
import { stderrLog } from './log.js';
import { devDatabaseFile } from './paths.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '7233' },
    'ui-port': { type: 'string', default: '8233' },
    db: { type: 'string', default: devDatabaseFile },
    headless: { type: 'boolean', default: false },
  },
  strict: true,
});

const port = Number(values.port);
const uiPort = Number(values['ui-port']);
if (!Number.isInteger(port) || !Number.isInteger(uiPort)) {
  process.stderr.write('dev:server: --port and --ui-port must be integers\n');
  process.exit(2);
}

let server;
try {
  server = await startDevServer({ port, uiPort, headless: values.headless, dbFile: values.db, log: stderrLog });
} catch (err) {
  // One line, never a stack: another server on the same file, a port in use, no CLI.
  process.stderr.write(
    `dev:server: ${err instanceof DevDatabaseHeldError ? err.message : (err instanceof Error ? err.message : String(err)).split('\n')[0]}\n`,
  );
  process.exit(1);
}
process.stdout.write(`Temporal dev server: ${server.address}\n`);
if (server.uiUrl) process.stdout.write(`Web UI: ${server.uiUrl}\n`);
process.stdout.write('Ctrl-C stops it.\n');

let stopping = false;
const shutdown = async (): Promise<void> => {
  if (stopping) return;
  stopping = true;
  await server.stop();
  process.exit(0);
};
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
