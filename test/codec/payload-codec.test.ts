// The codec and its key ring on their own: sealing names the current key, opening picks the key
// by id, a rotated ring opens old payloads, and every way a ring or a payload can be wrong is a
// typed error that says which.
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import {
  AesGcmPayloadCodec,
  dataConverterFromEnv,
  loadPayloadCodec,
  payloadKeyId,
  PayloadDecryptError,
  UnknownPayloadKeyError,
} from '../../worker/payload-codec.js';
import { parseKeyRing, PayloadKeyRingError, readKeyRing } from '../../worker/payload-keys.js';
import { newKey, ringEnv } from '../support/codec.js';

const k1 = newKey();
const k2 = newKey();

function codecOf(current: string, keys: Record<string, string>): AesGcmPayloadCodec {
  const ring = parseKeyRing({ current, keys });
  if (!ring.ok) throw ring.error;
  return new AesGcmPayloadCodec(ring.ring);
}

const value = { transferId: 'PX-1042', destination: 'DE89370400440532013000', amountMinor: 12_500 };
const plain = () => defaultPayloadConverter.toPayload(value);

describe('AesGcmPayloadCodec', () => {
  it('seals under the current key, names it, and opens back to the same payload', async () => {
    const codec = codecOf('k1', { k1 });
    const [sealed] = await codec.encode([plain()]);
    expect(Buffer.from(sealed!.metadata!.encoding!).toString()).toBe('binary/encrypted');
    expect(payloadKeyId(sealed!)).toBe('k1');
    expect(Buffer.from(sealed!.data!).includes('DE89370400440532013000')).toBe(false);
    const [opened] = await codec.decode([sealed!]);
    expect(defaultPayloadConverter.fromPayload(opened!)).toEqual(value);
  });

  it('never seals the same value to the same bytes (a fresh nonce each time)', async () => {
    const codec = codecOf('k1', { k1 });
    const [a, b] = await codec.encode([plain(), plain()]);
    expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).toBe(false);
  });

  it('after rotation, seals under the new key and still opens what the old key sealed', async () => {
    const [old] = await codecOf('k1', { k1 }).encode([plain()]);
    const rotated = codecOf('k2', { k1, k2 });
    const [fresh] = await rotated.encode([plain()]);
    expect(payloadKeyId(fresh!)).toBe('k2');
    const opened = await rotated.decode([old!, fresh!]);
    expect(opened.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([value, value]);
  });

  it('a payload under a key the ring no longer holds is UnknownPayloadKeyError naming the key', async () => {
    const [old] = await codecOf('k1', { k1 }).encode([plain()]);
    const err = await codecOf('k2', { k2 })
      .decode([old!])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownPayloadKeyError);
    expect(err).toMatchObject({ keyId: 'k1', known: ['k2'] });
    expect((err as Error).message).toContain('"k1"');
  });

  it('a tampered payload, a relabelled one, or a same-named key that differs is PayloadDecryptError', async () => {
    const codec = codecOf('k1', { k1, k2 });
    const [sealed] = await codec.encode([plain()]);
    const flipped = Buffer.from(sealed!.data!);
    flipped[20] = flipped[20]! ^ 1;
    await expect(codec.decode([{ ...sealed!, data: flipped }])).rejects.toBeInstanceOf(PayloadDecryptError);
    // Its key id is bound into the tag: claiming another key of the ring does not open it.
    const relabelled = { ...sealed!, metadata: { ...sealed!.metadata, 'encryption-key-id': Buffer.from('k2') } };
    await expect(codec.decode([relabelled])).rejects.toBeInstanceOf(PayloadDecryptError);
    await expect(codecOf('k1', { k1: k2 }).decode([sealed!])).rejects.toBeInstanceOf(PayloadDecryptError);
    await expect(codec.decode([{ ...sealed!, data: new Uint8Array(5) }])).rejects.toThrow(/too short/);
  });

  it('passes payloads that were never sealed through (histories from before encryption)', async () => {
    const codec = codecOf('k1', { k1 });
    const [opened] = await codec.decode([plain()]);
    expect(defaultPayloadConverter.fromPayload(opened!)).toEqual(value);
  });
});

describe('the key ring from configuration', () => {
  it('is off without AGENT_PAYLOAD_KEYS and on with a valid file', async () => {
    expect(loadPayloadCodec({})).toBeUndefined();
    expect(dataConverterFromEnv({})).toBeUndefined();
    const codec = loadPayloadCodec(ringEnv('k2', { k1, k2 }));
    expect(codec?.currentKeyId).toBe('k2');
    expect(dataConverterFromEnv(ringEnv('k1', { k1 }))?.payloadCodecs).toHaveLength(1);
  });

  it.each([
    ['current not in keys', { current: 'k3', keys: { k1 } }, /current: current names a key that is not in keys/],
    ['a key of the wrong length', { current: 'k1', keys: { k1: Buffer.alloc(16).toString('base64') } }, /keys\.k1: a key is base64 of exactly 32/],
    ['a key that is not base64', { current: 'k1', keys: { k1: 'not base64!' } }, /keys\.k1: a key is base64/],
    ['no keys', { current: 'k1', keys: {} }, /at least one key/],
    ['a bad key id', { current: 'k 1', keys: { 'k 1': k1 } }, /a key id is/],
    ['an unknown field', { current: 'k1', keys: { k1 }, extra: 1 }, /extra/],
  ])('refuses %s with PayloadKeyRingError', (_name, ring, message) => {
    const parsed = parseKeyRing(ring, 'ring.json');
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error).toBeInstanceOf(PayloadKeyRingError);
    expect(parsed.error.message).toMatch(/^payload key ring ring\.json: /);
    expect(parsed.error.message).toMatch(message);
  });

  it('a missing or non-JSON file is one clear line, thrown by loadPayloadCodec', () => {
    const missing = join(tmpdir(), 'no-such-ring.json');
    expect(readKeyRing(missing)).toMatchObject({ ok: false, error: { message: `payload key ring ${missing}: no such file` } });
    const notJson = join(tmpdir(), `ring-${process.pid}.txt`);
    writeFileSync(notJson, 'current=k1', { mode: 0o600 });
    try {
      expect(() => loadPayloadCodec({ AGENT_PAYLOAD_KEYS: notJson })).toThrow(new PayloadKeyRingError(notJson, 'not JSON'));
    } finally {
      rmSync(notJson, { force: true });
    }
  });
});
