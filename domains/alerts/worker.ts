// The alerts example's worker as a process of its own: the alerts domain against the world at
// WORLD_URL, the Prometheus at PROMETHEUS_URL and the Alertmanager at ALERTMANAGER_URL. It exists
// so a run can outlive its worker: the soak-crash test SIGKILLs this process mid-window and starts
// another, and a team runs the same lines as its own alert worker. Everything else comes from the
// environment (worker/run-worker.ts).
import { fileURLToPath } from 'node:url';
import { runWorkerProcess } from '../../worker/public.js';
import { WorldClient } from '../world/client.js';
import { alertsImplementation } from './tools.js';

const missing = ['WORLD_URL', 'PROMETHEUS_URL', 'ALERTMANAGER_URL'].filter((name) => !process.env[name]?.trim());
if (missing.length > 0) {
  process.stderr.write(`alerts worker: set ${missing.join(', ')} (the systems of record, Prometheus and Alertmanager)\n`);
  process.exit(2);
}

await runWorkerProcess({
  implementations: [alertsImplementation],
  deps: {
    world: new WorldClient(process.env.WORLD_URL as string),
    prometheusUrl: process.env.PROMETHEUS_URL as string,
    alertmanagerUrl: process.env.ALERTMANAGER_URL as string,
  },
  workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
});
