#!/usr/bin/env node
// The `agent` command: the examples' operator CLI (domains/cli.ts) run through tsx, so no build step.
import { register } from 'tsx/esm/api';

register();
await import('../domains/cli.ts');
