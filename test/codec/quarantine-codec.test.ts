// The worker's quarantine codec on its own: what a workflow's client sent that does not decode
// becomes a marker naming why (never the payload's bytes); everything else, and every payload of
// an activity, decodes strictly and fails loudly, naming the key.
import { defaultPayloadConverter, type Payload, type PayloadCodec, type SerializationContext } from '@temporalio/common';
import type { WorkerOptions } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { agentCodecPlugin } from '../../worker/codec-plugin.js';
import { AesGcmPayloadCodec, UnknownPayloadKeyError } from '../../worker/payload-codec.js';
import { parseKeyRing } from '../../worker/payload-keys.js';
import { QuarantineCodec, quarantined } from '../../worker/quarantine-codec.js';
import { isUndecodable, UNDECODABLE_KEY } from '../../workflows/quarantine-marker.js';
import { forgedPayload, newKey } from '../support/codec.js';

const k1 = newKey();
function aes(current: string, keys: Record<string, string>): AesGcmPayloadCodec {
  const ring = parseKeyRing({ current, keys });
  if (!ring.ok) throw ring.error;
  return new AesGcmPayloadCodec(ring.ring);
}

const workflow: SerializationContext = { type: 'workflow', namespace: 'default', workflowId: 'payments-PX-1' };
const activity: SerializationContext = { type: 'activity', namespace: 'default', workflowId: 'payments-PX-1', isLocal: false };
const value = { by: 'alice', reason: 'fine' };
const markerOf = (p: Payload) => {
  const decoded = defaultPayloadConverter.fromPayload(p);
  return isUndecodable(decoded) ? decoded[UNDECODABLE_KEY] : undefined;
};

describe('QuarantineCodec', () => {
  const codec = new QuarantineCodec([aes('k1', { k1 })], { checkConversion: true });

  it('in a workflow, turns each undecodable payload into a marker and leaves the good ones', async () => {
    const [good] = await aes('k1', { k1 }).encode([defaultPayloadConverter.toPayload(value)]);
    const [otherKey] = await aes('k9', { k9: newKey() }).encode([defaultPayloadConverter.toPayload(value)]);
    const flipped = Buffer.from(good!.data!);
    flipped[20] = flipped[20]! ^ 1;
    const tampered = { ...good!, data: flipped };
    const secret = 'IBAN DE89370400440532013000';
    const out = await codec.decode(
      [good!, otherKey!, tampered, forgedPayload('binary/whatever', secret), forgedPayload('json/plain', `{"x": "${secret}"`), forgedPayload('bin ary\n', 'x')],
      workflow,
    );
    expect(defaultPayloadConverter.fromPayload(out[0]!)).toEqual(value);
    expect(out.slice(1).map(markerOf)).toEqual([
      { encoding: 'binary/encrypted', reason: 'unknown-key', keyId: 'k9' },
      { encoding: 'binary/encrypted', reason: 'does-not-decrypt', keyId: 'k1' },
      { encoding: 'binary/whatever', reason: 'unknown-encoding' },
      { encoding: 'json/plain', reason: 'not-convertible' },
      { encoding: '(unreadable)', reason: 'unknown-encoding' },
    ]);
    // A marker carries nothing of what was sent.
    for (const p of out.slice(1)) expect(Buffer.from(p.data!).includes('DE89')).toBe(false);
  });

  it('for an activity, or with no context, decodes strictly: a missing key is UnknownPayloadKeyError naming it', async () => {
    const [otherKey] = await aes('k9', { k9: newKey() }).encode([defaultPayloadConverter.toPayload(value)]);
    await expect(codec.decode([otherKey!], activity)).rejects.toBeInstanceOf(UnknownPayloadKeyError);
    await expect(codec.decode([otherKey!])).rejects.toThrow(/"k9"/);
  });

  it('encodes through its codecs in order, so what it seals opens with the plain codec', async () => {
    const sealed = await codec.encode([defaultPayloadConverter.toPayload(value)], workflow);
    const [opened] = await aes('k1', { k1 }).decode(sealed);
    expect(defaultPayloadConverter.fromPayload(opened!)).toEqual(value);
  });

  it('a codec plugin listed after agentPlugin goes inside the quarantine, not around it', async () => {
    const configured = agentCodecPlugin([aes('k1', { k1 })]).configureWorker({ taskQueue: 'q', dataConverter: quarantined(undefined) } as WorkerOptions);
    const codecs = configured.dataConverter?.payloadCodecs ?? [];
    expect(codecs).toHaveLength(1);
    expect(codecs[0]).toBeInstanceOf(QuarantineCodec);
    expect((codecs[0] as QuarantineCodec).inner).toHaveLength(1);
    expect(quarantined(configured.dataConverter)).toBe(configured.dataConverter);
  });

  it('a codec plugin on the connection and on the worker or client seals once: a process that lists it once opens what they write', async () => {
    const plugin = agentCodecPlugin([aes('k1', { k1 })]);
    // What the SDK does with a plugin on the connection and the same plugin on the worker (or client): applies both.
    const once = (options: WorkerOptions) => plugin.configureWorker(options);
    const worker = once(once({ taskQueue: 'q', dataConverter: quarantined(undefined) } as WorkerOptions));
    const client = plugin.configureClient(plugin.configureClient({}));
    for (const [who, codecs] of [
      ['worker', ((worker.dataConverter?.payloadCodecs?.[0] as QuarantineCodec | undefined)?.inner ?? []) as readonly PayloadCodec[]],
      ['client', client.dataConverter?.payloadCodecs ?? []],
    ] as const) {
      expect(codecs, who).toHaveLength(1);
      let sealed = [defaultPayloadConverter.toPayload(value)];
      for (const c of codecs) sealed = await c.encode(sealed, activity);
      const [opened] = await aes('k1', { k1 }).decode(sealed);
      expect(defaultPayloadConverter.fromPayload(opened!), who).toEqual(value);
    }
  });

  it('counts two codecs over the same ring as one, and keeps a codec over another ring', () => {
    const k2 = newKey();
    const twice = agentCodecPlugin([aes('k1', { k1 })]).configureClient(agentCodecPlugin([aes('k1', { k1 })]).configureClient({}));
    expect(twice.dataConverter?.payloadCodecs).toHaveLength(1);
    const rotated = agentCodecPlugin([aes('k2', { k1, k2 })]).configureClient(agentCodecPlugin([aes('k1', { k1 })]).configureClient({}));
    expect(rotated.dataConverter?.payloadCodecs).toHaveLength(2);
  });

  it('opens a payload a misconfigured deployment sealed twice, and no deeper', async () => {
    const sealedTwice = await codec.encode(await codec.encode([defaultPayloadConverter.toPayload(value)], activity), activity);
    const [opened] = await aes('k1', { k1 }).decode(sealedTwice);
    expect(defaultPayloadConverter.fromPayload(opened!)).toEqual(value);
    const sealedThrice = await codec.encode(sealedTwice, activity);
    const [twoOpened] = await aes('k1', { k1 }).decode(sealedThrice);
    expect(Buffer.from(twoOpened!.metadata!.encoding!).toString()).toBe('binary/encrypted');
  });
});
