// What a signed note sent to a running run is bound to: the run's namespace and settings
// (workflows/trust/run-binding.ts), read from the server, as the workflow computes them from its
// own input. Bound to the workflow id alone, a note copied out of one namespace's history would
// vouch in a run of the same id in another namespace where the same operators are trusted (a
// staging and a production namespace, say), for as long as it is valid.
import type { Client } from '@temporalio/client';
import { RunInput } from '../workflows/run-input.js';
import { runBinding } from '../workflows/trust/run-binding.js';
import { startInputOf } from './start-input.js';

/**
 * The binding of the run's current execution, or undefined when its input cannot be read here
 * (no such run, no key for it, not a run of this engine): a note signed without one binds the
 * workflow id only, as before.
 */
export async function runBindingOf(client: Client, runId: string): Promise<string | undefined> {
  const input = await startInputOf(client, runId).catch(() => undefined);
  const run = RunInput.safeParse(input && typeof input === 'object' ? (input as { run?: unknown }).run : undefined);
  return run.success ? runBinding(client.options.namespace, run.data) : undefined;
}
