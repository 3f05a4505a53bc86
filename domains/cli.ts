// The examples' operator CLI (`npm run cli -- <command>`, the `agent` bin): the engine's CLI
// built with the example domains and their workflows module.
import { fileURLToPath } from 'node:url';
import { runCli } from '../client/public.js';
import { incidents } from './incidents/domain.js';
import { payments } from './payments/domain.js';
import { synthetic } from './synthetic/domain.js';

await runCli({
  domains: [payments, incidents, synthetic],
  workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
});
