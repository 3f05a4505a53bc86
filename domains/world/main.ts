// CLI: tsx domains/world/main.ts [--port 0] [--db .world/world.db] [--exit-on-stdin-close]
// Prints exactly one line, `WORLD_READY <url>`, once it accepts requests;
// everything else goes to stderr so the ready line is easy to find.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { createWorldServer } from './server.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    db: { type: 'string', default: '.world/world.db' },
    // Set by startWorld: if the parent dies without stopping us, its end of
    // our stdin closes and we follow it instead of lingering as an orphan.
    'exit-on-stdin-close': { type: 'boolean', default: false },
  },
});

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`world: invalid --port ${values.port}`);
  process.exit(2);
}

mkdirSync(dirname(values.db), { recursive: true });
const world = createWorldServer({ dbPath: values.db });
const bound = await world.listen(port);
process.stdout.write(`WORLD_READY http://127.0.0.1:${bound}\n`);

let stopping = false;
async function stop(reason: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.error(`world: stopping (${reason})`);
  await world.close();
  process.exit(0);
}

process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
if (values['exit-on-stdin-close']) {
  process.stdin.on('end', () => void stop('stdin closed'));
  process.stdin.on('error', () => void stop('stdin error'));
  process.stdin.resume();
}
