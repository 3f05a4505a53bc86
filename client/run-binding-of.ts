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
 * The binding of the run's current execution, or why there is none: its input cannot be read
 * here (no such run, no key for it) or is not a run of this engine. The caller refuses to sign
 * then: a note signed without it would name the workflow id only, and the run that made it so
 * may be anyone's.
 */
export async function runBindingOf(client: Client, runId: string): Promise<{ ok: true; bound: string } | { ok: false; reason: string }> {
  let input: unknown;
  try {
    input = await startInputOf(client, runId);
  } catch (err) {
    return { ok: false, reason: `its input could not be read (${err instanceof Error ? err.message : String(err)})` };
  }
  const run = RunInput.safeParse(input && typeof input === 'object' ? (input as { run?: unknown }).run : undefined);
  return run.success ? { ok: true, bound: runBinding(client.options.namespace, run.data) } : { ok: false, reason: 'its input is not a run of this engine' };
}
