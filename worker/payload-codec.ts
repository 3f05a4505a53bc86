// Payload encryption: an AES-256-GCM PayloadCodec over the key ring (worker/payload-keys.ts), so
// transfer details, incident logs, model replies and run state reach Temporal's history only as
// ciphertext. Every process that reads or writes a run's payloads (worker, client, CLI, console,
// replay, the Web UI's codec endpoint) builds the same codec from the same environment with
// dataConverterFromEnv(), so turning encryption on is one variable, not five code changes.
//
// Each sealed payload names the key that sealed it (`encryption-key-id`); decoding looks the key up
// by that id, so a rotated ring (new current key, old keys kept) still opens every old payload.
// Payloads that are not sealed (histories from before encryption was turned on) pass through.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
// A CommonJS module: under plain Node ESM only its default export is there.
import proto from '@temporalio/proto';
import { PAYLOAD_KEYS_ENV, readKeyRing, type KeyRing } from './payload-keys.js';
import { AgentWorkerError } from '../activities/worker-error.js';
import { plainName } from '../workflows/quarantine-marker.js';
import { withSealedFailures } from './sealed-failures.js';

/** The metadata `encoding` of a sealed payload: the name Temporal's samples and codec servers use. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
export const CIPHER_METADATA = 'encryption-cipher';
const { Payload: PayloadMessage } = proto.temporal.api.common.v1;
const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** A sealed payload names a key the ring does not hold (rotated out too early, or the wrong ring). */
export class UnknownPayloadKeyError extends AgentWorkerError {
  static override readonly errorName: string = 'UnknownPayloadKeyError';
  constructor(
    readonly keyId: string,
    readonly known: readonly string[],
  ) {
    // The key id is whatever the payload's writer put there (anyone may complete an activity): plain and short, or not shown.
    super(
      `payload sealed with key "${plainName(keyId)}", which this key ring does not hold (it holds ${known.map((k) => `"${k}"`).join(', ')}); keep old keys in the ring until no history needs them`,
    );
  }
}

/** A sealed payload that does not open: tampered with, truncated, or sealed by someone else's key of the same id. */
export class PayloadDecryptError extends AgentWorkerError {
  static override readonly errorName: string = 'PayloadDecryptError';
  constructor(
    readonly keyId: string | undefined,
    readonly reason: string,
  ) {
    super(`cannot decrypt a payload${keyId ? ` sealed with key "${keyId}"` : ''}: ${reason}`);
  }
}

/** The id of the key that sealed this payload, or undefined when it is not sealed. */
export function payloadKeyId(payload: Payload): string | undefined {
  const metadata = payload.metadata ?? {};
  if (!isSealed(payload)) return undefined;
  const id = metadata[KEY_ID_METADATA];
  return id ? fromUtf8.decode(id) : undefined;
}

function isSealed(payload: Payload): boolean {
  const encoding = payload.metadata?.encoding;
  return encoding !== undefined && encoding !== null && fromUtf8.decode(encoding) === ENCRYPTED_ENCODING;
}

/** The additional authenticated data: the key id, so a sealed payload cannot be relabelled to another key. */
function aad(keyId: string): Uint8Array {
  return utf8.encode(`agent-payload/v1/${keyId}`);
}

export class AesGcmPayloadCodec implements PayloadCodec {
  constructor(private readonly ring: KeyRing) {}

  /** The id new payloads are sealed under. */
  get currentKeyId(): string {
    return this.ring.current;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.seal(payload));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      // A deployment that once listed the codec plugin twice (on a connection and its worker)
      // sealed each payload twice; those histories still open with one codec. No deeper.
      const opened = this.open(payload);
      return isSealed(opened) ? this.open(opened) : opened;
    });
  }

  /** Seals and opens exactly as `other` does: the same current key and the same keys under the same ids. */
  sameRingAs(other: AesGcmPayloadCodec): boolean {
    const [a, b] = [this.ring, other.ring];
    if (a.current !== b.current || a.keys.size !== b.keys.size) return false;
    return [...a.keys].every(([id, key]) => b.keys.get(id)?.equals(key) === true);
  }

  private seal(payload: Payload): Payload {
    const keyId = this.ring.current;
    const key = this.ring.keys.get(keyId);
    // parseKeyRing guarantees it; a ring built by hand might not.
    if (!key) throw new UnknownPayloadKeyError(keyId, [...this.ring.keys.keys()]);
    // The whole payload (its metadata too: the encoding tells what the plaintext is) is sealed.
    const plain = PayloadMessage.encode(payload).finish();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(CIPHER, key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(keyId));
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: {
        encoding: utf8.encode(ENCRYPTED_ENCODING),
        [KEY_ID_METADATA]: utf8.encode(keyId),
        [CIPHER_METADATA]: utf8.encode(CIPHER),
      },
      data: sealed,
    };
  }

  private open(payload: Payload): Payload {
    if (!isSealed(payload)) return payload;
    const keyId = payloadKeyId(payload);
    if (!keyId) throw new PayloadDecryptError(undefined, `its metadata has no ${KEY_ID_METADATA}`);
    const key = this.ring.keys.get(keyId);
    if (!key) throw new UnknownPayloadKeyError(keyId, [...this.ring.keys.keys()]);
    const data = payload.data ?? new Uint8Array();
    if (data.length < IV_BYTES + TAG_BYTES) throw new PayloadDecryptError(keyId, 'too short to be sealed');
    const iv = data.subarray(0, IV_BYTES);
    const tag = data.subarray(data.length - TAG_BYTES);
    const body = data.subarray(IV_BYTES, data.length - TAG_BYTES);
    const decipher = createDecipheriv(CIPHER, key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad(keyId));
    decipher.setAuthTag(tag);
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(body), decipher.final()]);
    } catch {
      throw new PayloadDecryptError(keyId, 'authentication failed');
    }
    const inner = PayloadMessage.decode(plain);
    return { metadata: inner.metadata, data: inner.data };
  }
}

/**
 * The codec the environment asks for: AGENT_PAYLOAD_KEYS names a key-ring file, and then every
 * payload is sealed; unset, payloads stay as Temporal's default writes them (undefined). A set
 * variable with a bad file throws PayloadKeyRingError (one line: which file, what is wrong),
 * because starting without encryption when it was asked for would be the worse failure.
 */
export function loadPayloadCodec(env: NodeJS.ProcessEnv = process.env): AesGcmPayloadCodec | undefined {
  const path = env[PAYLOAD_KEYS_ENV]?.trim();
  if (!path) return undefined;
  const ring = readKeyRing(path);
  if (!ring.ok) throw ring.error;
  return new AesGcmPayloadCodec(ring.ring);
}

/**
 * The data converter for Worker.create, new Client(...) and Worker.runReplayHistory: the payload
 * codec above when AGENT_PAYLOAD_KEYS is set, with failure messages sealed too
 * (worker/sealed-failures.ts), else undefined (Temporal's default converter).
 */
export function dataConverterFromEnv(env: NodeJS.ProcessEnv = process.env): DataConverter | undefined {
  const codec = loadPayloadCodec(env);
  return codec ? withSealedFailures({ payloadCodecs: [codec] }) : undefined;
}
