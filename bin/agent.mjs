#!/usr/bin/env node
// The `agent` command: the operator CLI (client/cli.ts) run through tsx, so no build step.
import { register } from 'tsx/esm/api';

register();
await import('../client/cli.ts');
