// `npm run worker`: the examples' worker process. It serves the example domains against the
// simulated systems of record at WORLD_URL; everything else comes from the environment (see
// worker/run-worker.ts).
import { fileURLToPath } from 'node:url';
import { runWorkerProcess } from '../worker/public.js';
import { implementations } from './implementations.js';
import { WorldClient } from './world/client.js';

const worldUrl = process.env.WORLD_URL;
if (!worldUrl) {
  process.stderr.write('worker: set WORLD_URL to the systems of record (npm run world prints it)\n');
  process.exit(2);
}

await runWorkerProcess({
  implementations,
  deps: { world: new WorldClient(worldUrl) },
  workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
});
