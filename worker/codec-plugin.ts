// Payload codecs (the engine's encryption, or any codec of a team's) as a plugin of their own,
// listed next to agentPlugin: on a worker, a replay worker and a Client alike, so every process
// that reads these runs is given the codecs the same way.
import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { SimplePlugin } from '@temporalio/plugin';
import { AesGcmPayloadCodec } from './payload-codec.js';
import { QuarantineCodec } from './quarantine-codec.js';
import { withSealedFailures } from './sealed-failures.js';

export const AGENT_CODEC_PLUGIN_NAME = 'bounded-react-temporal.codec';

/**
 * Payload codecs applied after the worker's (or client's) own: on the way out theirs encode
 * first and these last; on the way in these decode first. Every worker and client of these runs
 * lists the same plugin, or gives the same codecs in the same order. The messages and stack
 * traces of the failures activities raise are sealed with the payloads (worker/sealed-failures.ts),
 * unless a failure converter of your own is set.
 *
 * @example
 * ```ts
 * const codec = loadPayloadCodec(); // AGENT_PAYLOAD_KEYS
 * const plugins = codec ? [agentCodecPlugin([codec])] : [];
 * await Worker.create({ ...yourOptions, plugins: [...plugins, agentPlugin({ implementations, blobDir })] });
 * const client = new Client({ connection, plugins });
 * ```
 */
export function agentCodecPlugin(codecs: readonly PayloadCodec[]): SimplePlugin {
  return new SimplePlugin({ name: AGENT_CODEC_PLUGIN_NAME, dataConverter: (existing) => withSealedFailures(withCodecs(existing, codecs)) });
}

function withCodecs(existing: DataConverter | undefined, given: readonly PayloadCodec[]): DataConverter {
  // Listed after agentPlugin on a worker: these go inside its quarantine, which must decode last
  // on the way in (codecs decode in reverse) to see what they could not open.
  const quarantine = existing?.payloadCodecs?.find((c): c is QuarantineCodec => c instanceof QuarantineCodec);
  // The SDK applies a connection's plugins to every worker and client on it as well as their own:
  // a plugin listed on both would seal each payload twice, which a process that lists it once
  // cannot open. A codec already in the chain is not added again.
  const present = [...(existing?.payloadCodecs ?? []), ...(quarantine?.inner ?? [])];
  const added = given.filter((c) => !present.some((p) => sameCodec(p, c)));
  if (quarantine) return { ...existing, payloadCodecs: existing!.payloadCodecs!.map((c) => (c === quarantine ? quarantine.withCodecs(added) : c)) };
  const codecs = [...(existing?.payloadCodecs ?? []), ...added];
  const merged: DataConverter = { ...existing };
  if (codecs.length) merged.payloadCodecs = codecs;
  else delete merged.payloadCodecs;
  return merged;
}

/** The same codec, or the engine's encryption over the same ring (loaded twice from one file). */
function sameCodec(a: PayloadCodec, b: PayloadCodec): boolean {
  return a === b || (a instanceof AesGcmPayloadCodec && b instanceof AesGcmPayloadCodec && a.sameRingAs(b));
}
