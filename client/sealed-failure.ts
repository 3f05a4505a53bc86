// A failure's message as a person should read it. With a payload codec the worker seals the
// message and stack trace of the failures its own process raises (worker/failure-converter.cjs):
// an activity's, and a workflow task's that failed before the workflow code ran (the workflows
// module would not load, say). The history then says only "Encoded failure"; a process holding
// the key opens it with its own converter. The SDK does that for the errors it hands back (a
// run's result, an Update's refusal), but not for failures read from a raw history, which is
// where `agent status` finds why a workflow task fails or a run failed.
import type { Client } from '@temporalio/client';
import type { Payload, ProtoFailure } from '@temporalio/common';
import { decodedValue } from './client-payloads.js';

/** The failure's message: opened with the client's converter when sealed, and saying so when this client cannot open it. */
export async function openedFailureMessage(client: Client, failure: ProtoFailure): Promise<string> {
  if (!failure.encodedAttributes) return failure.message ?? '';
  const opened = await openedMessage(client, failure.encodedAttributes).catch(() => undefined);
  return opened ?? `${failure.message || 'Encoded failure'} (sealed; this process has no key that opens it)`;
}

/** What sealed attributes say the message is, opened with the client's converter. */
async function openedMessage(client: Client, sealed: Payload): Promise<string | undefined> {
  const opened = await decodedValue(client, [sealed]);
  const message = opened && typeof opened === 'object' ? (opened as { message?: unknown }).message : undefined;
  return typeof message === 'string' ? message : undefined;
}
