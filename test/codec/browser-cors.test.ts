// The codec endpoint's CORS as a real browser enforces it: a page on the Web UI's origin makes
// the very request the Web UI makes (a cross-origin POST with Authorization, so the browser sends
// a preflight first) and reads the decoded payload; the same request from a page of another
// origin is blocked by Chromium itself, because the server gave that origin no CORS headers.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultPayloadConverter } from '@temporalio/common';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCodecServer, type CodecServer } from '../../worker/codec-server.js';
import { loadPayloadCodec } from '../../worker/payload-codec.js';
import { newKey, ringEnv } from '../support/codec.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const TOKEN = 'browser-test-token-0123456789';

/** A page server standing in for a site of one origin: it serves an empty page, nothing else. */
async function pageServer(): Promise<{ origin: string; server: Server }> {
  const server = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>ui</title>'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

interface Outcome {
  status?: number;
  body?: { payloads?: { metadata: Record<string, string>; data: string }[] };
  blocked?: string;
}

describe('the codec endpoint in a real browser', () => {
  const codec = loadPayloadCodec(ringEnv('k1', { k1: newKey() }))!;
  let ui: { origin: string; server: Server };
  let other: { origin: string; server: Server };
  let endpoint: CodecServer;
  let browser: Browser;
  let sealed: { metadata: Record<string, string>; data: string };

  beforeAll(async () => {
    [ui, other, browser] = await Promise.all([pageServer(), pageServer(), chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })]);
    endpoint = await startCodecServer({ codec, token: TOKEN, origins: [ui.origin] });
    const [payload] = await codec.encode([defaultPayloadConverter.toPayload({ destination: 'DE89370400440532013000' })]);
    sealed = {
      metadata: Object.fromEntries(Object.entries(payload!.metadata!).map(([k, v]) => [k, Buffer.from(v!).toString('base64')])),
      data: Buffer.from(payload!.data!).toString('base64'),
    };
  });
  afterAll(async () => {
    await browser?.close();
    await endpoint?.close();
    for (const s of [ui, other]) s?.server.close();
  });

  /** The Web UI's request, made by a page of `origin`. */
  async function decodeFrom(origin: string, authorization: string | undefined): Promise<Outcome> {
    const page = await browser.newPage();
    try {
      await page.goto(origin);
      return await page.evaluate(
        async ({ url, payload, authorization }) => {
          try {
            const res = await fetch(url, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', ...(authorization ? { Authorization: authorization } : {}) },
              body: JSON.stringify({ payloads: [payload] }),
            });
            return { status: res.status, body: (await res.json()) as Outcome['body'] };
          } catch (err) {
            return { blocked: String(err) };
          }
        },
        { url: `${endpoint.url}/decode`, payload: sealed, authorization },
      );
    } finally {
      await page.close();
    }
  }

  it('lets the Web UI origin read the decoded payload', async () => {
    const outcome = await decodeFrom(ui.origin, `Bearer ${TOKEN}`);
    expect(outcome.status).toBe(200);
    const data = Buffer.from(outcome.body!.payloads![0]!.data, 'base64').toString('utf8');
    expect(JSON.parse(data)).toEqual({ destination: 'DE89370400440532013000' });
  });

  it('shows the Web UI origin a 401 without the token', async () => {
    const outcome = await decodeFrom(ui.origin, undefined);
    expect(outcome.status).toBe(401);
  });

  it('is blocked by the browser for a page of another origin, token or not', async () => {
    const outcome = await decodeFrom(other.origin, `Bearer ${TOKEN}`);
    expect(outcome.status).toBeUndefined();
    expect(outcome.blocked).toMatch(/TypeError|Failed to fetch/);
  });
});
