// The worker's quarantine: a payload from a client that the worker cannot decode must not stop a
// run. Temporal decodes a whole workflow activation before the sandbox sees it, and one payload
// that fails (a sealed payload under a key id this ring does not hold, ciphertext that does not
// open, an encoding no converter knows, `json/plain` that is not JSON) fails the whole workflow
// task, and every retry of it: the run answers no query and takes no approval again. Anyone who
// reaches the frontend can send such a signal or Update; no key is needed.
//
// So the worker's codecs are wrapped in this one. For payloads of a workflow (serialization
// context `workflow`: its input, signals, Updates, queries) a payload that does not decode
// becomes a json/plain marker (workflows/quarantine-marker.ts) naming the encoding, the key id and
// why, never its bytes; the quarantine interceptors (workflows/quarantine-interceptors.ts) then
// drop the signal, refuse the Update or query, and fail the workflow task loudly for the run's own
// input. Everything else (activity results in a workflow activation and activity inputs on the
// activity side, context `activity`, and calls without a context) is decoded as before and fails
// loudly, naming the key: a run's own payloads that a worker cannot open mean a key is missing
// from its ring, and a retried task goes on once it is back.
//
// Only workers wrap their codecs (worker/plugin.ts); clients, the codec server and replay tools
// keep the strict codecs, where a payload that does not open must be an error.
import { defaultPayloadConverter, type DataConverter, type Payload, type PayloadCodec, type SerializationContext } from '@temporalio/common';
import { ENCRYPTED_ENCODING, KEY_ID_METADATA, PayloadDecryptError, UnknownPayloadKeyError } from './payload-codec.js';
import { plainName, undecodableMarker, type UndecodableInfo, type UndecodableReason } from '../workflows/quarantine-marker.js';

const fromUtf8 = new TextDecoder();

export interface QuarantineOptions {
  /**
   * Also quarantine what the default payload converter cannot read (an unknown encoding, bad JSON).
   * Off when the worker has a payload converter of its own (`payloadConverterPath`), whose
   * encodings this codec cannot know.
   */
  checkConversion: boolean;
}

export class QuarantineCodec implements PayloadCodec {
  constructor(
    /** The worker's own codecs, in the order they encode. */
    readonly inner: readonly PayloadCodec[],
    private readonly options: QuarantineOptions,
  ) {}

  /** The same quarantine around more codecs: for a codec plugin listed after agentPlugin. */
  withCodecs(added: readonly PayloadCodec[]): QuarantineCodec {
    return new QuarantineCodec([...this.inner, ...added], this.options);
  }

  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    for (const codec of this.inner) payloads = await codec.encode(payloads, context);
    return payloads;
  }

  async decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    if (context?.type !== 'workflow') return this.decodeStrict(payloads, context);
    // The common case pays for one pass; only a batch that fails is taken apart.
    const decoded = await this.decodeStrict(payloads, context).catch(() => undefined);
    const each = decoded ?? (await Promise.all(payloads.map((p) => this.decodeOne(p, context))));
    return this.options.checkConversion ? each.map(convertibleOrMarker) : each;
  }

  private async decodeStrict(payloads: Payload[], context: SerializationContext | undefined): Promise<Payload[]> {
    for (let i = this.inner.length - 1; i >= 0; i--) payloads = await this.inner[i]!.decode(payloads, context);
    return payloads;
  }

  private async decodeOne(payload: Payload, context: SerializationContext): Promise<Payload> {
    try {
      const [decoded] = await this.decodeStrict([payload], context);
      return decoded ?? markerPayload(infoOf(payload, 'codec-refused'));
    } catch (err) {
      return markerPayload(infoOf(payload, reasonOf(err)));
    }
  }
}

function reasonOf(err: unknown): UndecodableReason {
  if (UnknownPayloadKeyError.isInstance(err)) return 'unknown-key';
  if (PayloadDecryptError.isInstance(err)) return 'does-not-decrypt';
  return 'codec-refused';
}

function metadataText(payload: Payload, key: string): string | undefined {
  const value = payload.metadata?.[key];
  return value ? fromUtf8.decode(value) : undefined;
}

function infoOf(payload: Payload, reason: UndecodableReason): UndecodableInfo {
  const encoding = metadataText(payload, 'encoding');
  const keyId = encoding === ENCRYPTED_ENCODING ? metadataText(payload, KEY_ID_METADATA) : undefined;
  return { encoding: plainName(encoding), reason, ...(keyId !== undefined ? { keyId: plainName(keyId) } : {}) };
}

function markerPayload(info: UndecodableInfo): Payload {
  return defaultPayloadConverter.toPayload(undecodableMarker(info));
}

/** What the sandbox's default converter would fail on is quarantined here, before it fails the task there. */
function convertibleOrMarker(payload: Payload): Payload {
  try {
    defaultPayloadConverter.fromPayload(payload);
    return payload;
  } catch {
    const encoding = metadataText(payload, 'encoding');
    const known = encoding === 'json/plain' || encoding === 'binary/plain' || encoding === 'binary/null';
    return markerPayload(infoOf(payload, known ? 'not-convertible' : 'unknown-encoding'));
  }
}

/** True when this converter's codecs are already behind a quarantine. */
export function isQuarantined(converter: DataConverter | undefined): boolean {
  return converter?.payloadCodecs?.some((c) => c instanceof QuarantineCodec) ?? false;
}

/**
 * The worker's data converter with its codecs (none is fine: unknown encodings are still caught)
 * behind one QuarantineCodec. Applying it twice changes nothing.
 */
export function quarantined(converter: DataConverter | undefined): DataConverter {
  if (isQuarantined(converter)) return converter!;
  const codec = new QuarantineCodec(converter?.payloadCodecs ?? [], { checkConversion: !converter?.payloadConverterPath });
  return { ...converter, payloadCodecs: [codec] };
}
