// Payloads opened as this client's own data converter would open them, the way the SDK applies
// it: the codecs last to first, then the payload converter. For payloads the SDK leaves encoded
// because they were read raw from a history: a run's start input, a sealed failure's message.
import type { Client } from '@temporalio/client';
import { fromPayloadsAtIndex, type Payload } from '@temporalio/common';

/** The value of the first of `payloads`, through the client's codecs and payload converter. */
export async function decodedValue(client: Client, payloads: Payload[]): Promise<unknown> {
  const { payloadCodecs, payloadConverter } = client.options.loadedDataConverter;
  let decoded = payloads;
  for (const codec of [...payloadCodecs].reverse()) decoded = await codec.decode(decoded);
  return fromPayloadsAtIndex(payloadConverter, 0, decoded);
}
