// The examples' CLI as a value: the engine's CLI built with the example domains and their
// workflows module. domains/cli.ts runs it as `npm run cli --`; tests call it in their own
// process with cliMain, so both are the same CLI.
import { fileURLToPath } from 'node:url';
import type { CliConfig } from '../client/cli-public.js';
import { incidents } from './incidents/domain.js';
import { payments } from './payments/domain.js';
import { synthetic } from './synthetic/domain.js';

export const examplesCli: CliConfig = {
  domains: [payments, incidents, synthetic],
  workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
  programName: 'npm run cli --',
};
