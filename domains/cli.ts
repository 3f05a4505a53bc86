// The examples' operator CLI (`npm run cli -- <command>`): the engine's CLI built with the
// example domains and their workflows module. Its hints say `npm run cli --`, the command that
// exists in this repository; the package's own `agent` bin (client/bin.ts) knows no domains.
import { fileURLToPath } from 'node:url';
import { runCli } from '../client/cli-public.js';
import { incidents } from './incidents/domain.js';
import { payments } from './payments/domain.js';
import { synthetic } from './synthetic/domain.js';

await runCli({
  domains: [payments, incidents, synthetic],
  workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
  programName: 'npm run cli --',
});
