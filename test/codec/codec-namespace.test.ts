// The codec endpoint with a team's own `authorize` that lets a caller in for some namespaces only
// (as one checking the user's OIDC token against each namespace would). The namespace it is asked
// about must be the one whose payloads are decoded: the `/<ns>/decode` path segment, which a
// caller's own X-Namespace header may repeat but never contradict. Without that, a caller let in
// for its own namespace decodes another's payloads by naming its own in the header.
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCodecServer, type CodecServer } from '../../worker/codec-server.js';
import { loadPayloadCodec } from '../../worker/payload-codec.js';
import { newKey, ringEnv } from '../support/codec.js';

const TOKEN = 'Bearer team-a-user-token';

describe('the codec endpoint asks authorize about the namespace in its path', () => {
  const codec = loadPayloadCodec(ringEnv('k1', { k1: newKey() }))!;
  /** Every (authorization, namespace) authorize was asked about. */
  const asked: Array<[string | undefined, string | undefined]> = [];
  let endpoint: CodecServer;
  let sealed: { metadata: Record<string, string>; data: string };

  beforeAll(async () => {
    endpoint = await startCodecServer({
      codec,
      origins: [],
      // The user of this token may see team-a's payloads, nobody else's.
      authorize: (authorization, namespace) => {
        asked.push([authorization, namespace]);
        return authorization === TOKEN && namespace === 'team-a';
      },
    });
    const [payload] = await codec.encode([defaultPayloadConverter.toPayload({ destination: 'DE89370400440532013000' })]);
    sealed = {
      metadata: Object.fromEntries(Object.entries(payload!.metadata!).map(([k, v]) => [k, Buffer.from(v!).toString('base64')])),
      data: Buffer.from(payload!.data!).toString('base64'),
    };
  });
  afterAll(async () => {
    await endpoint?.close();
  });

  const decode = (path: string, namespaceHeader?: string) =>
    fetch(`${endpoint.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: TOKEN, ...(namespaceHeader !== undefined ? { 'X-Namespace': namespaceHeader } : {}) },
      body: JSON.stringify({ payloads: [sealed] }),
    });

  it("refuses another namespace's path with the caller's own namespace in the header, without asking authorize", async () => {
    asked.length = 0;
    const res = await decode('/team-b/decode', 'team-a');
    expect([400, 403]).toContain(res.status);
    expect(await res.text()).not.toContain('DE89370400440532013000');
    expect(asked.filter(([, ns]) => ns === 'team-a')).toEqual([]);
  });

  it("asks about the path's namespace: team-b's path is refused, team-a's decoded, with or without a matching header", async () => {
    asked.length = 0;
    expect((await decode('/team-b/decode')).status).toBe(401);
    expect(asked.at(-1)).toEqual([TOKEN, 'team-b']);
    for (const header of [undefined, 'team-a']) {
      const res = await decode('/team-a/decode', header);
      expect(res.status).toBe(200);
      const { payloads } = (await res.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
      const opened = defaultPayloadConverter.fromPayload({
        metadata: Object.fromEntries(Object.entries(payloads[0]!.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
        data: Buffer.from(payloads[0]!.data, 'base64'),
      });
      expect(opened).toEqual({ destination: 'DE89370400440532013000' });
      expect(asked.at(-1)).toEqual([TOKEN, 'team-a']);
    }
  });

  it('without a namespace in the path, the header names it, as the Web UI sends it', async () => {
    asked.length = 0;
    expect((await decode('/decode', 'team-a')).status).toBe(200);
    expect(asked.at(-1)).toEqual([TOKEN, 'team-a']);
    expect((await decode('/decode', 'team-b')).status).toBe(401);
    expect(asked.at(-1)).toEqual([TOKEN, 'team-b']);
  });
});
