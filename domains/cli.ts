// The examples' operator CLI (`npm run cli -- <command>`): the engine's CLI built with the
// example domains and their workflows module (domains/cli-config.ts). Its hints say
// `npm run cli --`, the command that exists in this repository; the package's own `agent` bin
// (client/bin.ts) knows no domains.
import { runCli } from '../client/cli-public.js';
import { examplesCli } from './cli-config.js';

await runCli(examplesCli);
