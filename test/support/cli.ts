// The examples' CLI for tests: called in this process with cliMain (its arguments, environment
// and output streams given, its exit code returned), against the suite's dev server. The same
// function `npm run cli --` runs; a spawned process adds only Node's start-up (about a second of
// CPU a call), so a few smoke tests spawn it (runScript) and the rest call it here.
import { inject } from 'vitest';
import { cliMain } from '../../client/cli-public.js';
import { examplesCli } from '../../domains/cli-config.js';
import type { ScriptResult } from './run-script.js';

/** The environment a CLI call sees: this process's, pointed at the suite's server and `taskQueue`. */
export function cliEnv(taskQueue: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    AGENT_TASK_QUEUE: taskQueue,
    ...extra,
  };
}

/** Runs one command of the examples' CLI in this process: what it printed and its exit code. */
export async function runCliHere(args: readonly string[], env: NodeJS.ProcessEnv): Promise<ScriptResult> {
  let stdout = '';
  let stderr = '';
  const code = await cliMain({ argv: args, env, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) }, examplesCli);
  return { code, stdout, stderr };
}
