#!/usr/bin/env node
// `agent`, the package's command (package.json `bin`): a team that installs the engine gets
// `npx agent keys generate`, `approve`, `deny`, `verify`, `status`, `watch`, `list`, `export`,
// `note`, `cancel`, `start`, `clear`, `replay` and `console` without writing an entry of its own.
// It knows no domains, so `start` leaves the domain and case-id checks to the worker, and
// `replay` needs --workflows MODULE; a team that wants neither calls runCli({ domains,
// workflowsPath }) from its own entry instead.
import { runCli } from './cli.js';

await runCli({ programName: 'agent' });
