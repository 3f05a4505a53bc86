// The codec endpoint as `npm run codec-server` runs it (a real process, on loopback), called the
// way Temporal's Web UI calls it: a POST to <endpoint>/decode with the UI's headers (Origin,
// Content-Type, X-Namespace, and Authorization when the UI is set to pass a token) and the
// payloads of a history read raw from the server. The right token and origin get the case data;
// no token is 401; another origin gets no CORS header and no answer it could read.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { seedTransfer } from '../../domains/world/seeds.js';
import { WorldClient } from '../../domains/world/client.js';
import { resolveTemporalCli } from '../../temporal-dev/cli.js';
import { projectRoot } from '../../temporal-dev/paths.js';
import { loadPayloadCodec, payloadKeyId } from '../../worker/payload-codec.js';
import { codecServerOptionsFromEnv } from '../../worker/codec-server-main.js';
import { startRun, uniqueCase } from '../support/agent.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { newKey, rawHistory, ringEnv, startStack, type Stack } from '../support/codec.js';

const UI = 'http://localhost:8233';
const TOKEN = 'codec-test-token-0123456789';
const k1 = newKey();
const ring = ringEnv('k1', { k1 });

type Wire = { metadata: Record<string, string>; data: string };
const toWire = (p: Payload): Wire => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')])),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});
const fromWire = (w: Wire): Payload => ({
  metadata: Object.fromEntries(Object.entries(w.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(w.data, 'base64'),
});

async function startCodecProcess(env: NodeJS.ProcessEnv): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'worker/codec-server-main.ts'], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const found = /CODEC_READY url=(\S+)/.exec(out);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`codec server exited (${code}): ${stderr}`)));
  });
  return { url, child };
}

describe('the codec endpoint (npm run codec-server, driven as the Web UI drives it)', () => {
  const taskQueue = uniqueTaskQueue('codec-ep');
  let stack: Stack;
  let server: { url: string; child: ChildProcess };
  let input: Payload;
  let transferId: string;
  let workflowId: string;
  const destination = `NL20ZZQX${Date.now() % 1_000_000}`;

  beforeAll(async () => {
    [stack, server] = await Promise.all([
      startStack(taskQueue, ring),
      startCodecProcess({ ...ring, AGENT_CODEC_TOKEN: TOKEN, AGENT_CODEC_ORIGINS: `${UI},http://127.0.0.1:8233`, AGENT_CODEC_PORT: '0' }),
    ]);
    transferId = uniqueCase('PX');
    await seedTransfer(new WorldClient(inject('worldUrl')), transferId, { destination });
    const handle = await startRun({ client: stack.client, taskQueue }, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    await handle.result();
    workflowId = handle.workflowId;
    const history = await rawHistory(stack.raw, workflowId);
    // The run's input as the server stores it.
    input = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    expect(payloadKeyId(input)).toBe('k1');
  });
  afterAll(async () => {
    if (server?.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await new Promise((resolve) => server.child.once('exit', resolve));
    }
    await stack?.close();
  });

  /** What the Web UI's fetch sends: its Origin, JSON, the namespace, and the token when it is set to pass one. */
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Namespace': inject('temporalNamespace'), ...headers },
      body: JSON.stringify(body),
    });

  it('decodes a payload from the raw history for the right token and origin', async () => {
    const res = await post('/decode', { payloads: [toWire(input)] }, { Origin: UI, Authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(UI);
    const { payloads } = (await res.json()) as { payloads: Wire[] };
    const decoded = defaultPayloadConverter.fromPayload(fromWire(payloads[0]!)) as { run: { caseId: string } };
    expect(decoded.run.caseId).toBe(transferId);
    // The same under a namespace segment, as the CLI's --codec-endpoint templating calls it, with no Origin.
    const viaCli = await post(`/${inject('temporalNamespace')}/decode`, { payloads: [toWire(input)] }, { Authorization: `Bearer ${TOKEN}` });
    expect(viaCli.status).toBe(200);
    expect(viaCli.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('is 401 without the token or with a wrong one, and tells the UI so (CORS headers on the refusal)', async () => {
    const none = await post('/decode', { payloads: [toWire(input)] }, { Origin: UI });
    expect(none.status).toBe(401);
    expect(none.headers.get('access-control-allow-origin')).toBe(UI);
    expect(JSON.stringify(await none.json())).not.toContain(transferId);
    const wrong = await post('/decode', { payloads: [toWire(input)] }, { Origin: UI, Authorization: `Bearer ${TOKEN}x` });
    expect(wrong.status).toBe(401);
  });

  it('gives another origin no CORS headers and no answer, even with the token', async () => {
    const res = await post('/decode', { payloads: [toWire(input)] }, { Origin: 'http://evil.example:8233', Authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(await res.text()).not.toContain(transferId);
  });

  it('answers a preflight for the UI origin only', async () => {
    const preflight = (origin: string) =>
      fetch(`${server.url}/decode`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type,x-namespace' },
      });
    const ok = await preflight(UI);
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(UI);
    expect(ok.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(ok.headers.get('access-control-allow-methods')).toContain('POST');
    const other = await preflight('http://localhost:9999');
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('encodes under the current key what the workers then decode', async () => {
    const plain = defaultPayloadConverter.toPayload({ note: 'entered in the UI' });
    const res = await post('/encode', { payloads: [toWire(plain)] }, { Origin: UI, Authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    const sealed = fromWire(((await res.json()) as { payloads: Wire[] }).payloads[0]!);
    expect(payloadKeyId(sealed)).toBe('k1');
    const [opened] = await loadPayloadCodec(ring)!.decode([sealed]);
    expect(defaultPayloadConverter.fromPayload(opened!)).toEqual({ note: 'entered in the UI' });
  });

  it('refuses a body that is not payloads, and a payload of a key it lacks, as typed JSON errors', async () => {
    const auth = { Origin: UI, Authorization: `Bearer ${TOKEN}` };
    expect((await post('/decode', { nope: 1 }, auth)).status).toBe(400);
    const [foreign] = await loadPayloadCodec(ringEnv('k9', { k9: newKey() }))!.encode([defaultPayloadConverter.toPayload(1)]);
    const res = await post('/decode', { payloads: [toWire(foreign!)] }, auth);
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ error: 'unknown_key', keyId: 'k9' });
    expect((await fetch(`${server.url}/decode`, { headers: auth })).status).toBe(405);
    expect((await post('/other', { payloads: [] }, auth)).status).toBe(404);
  });

  it('serves the Temporal CLI (temporal workflow show --codec-endpoint --codec-auth): the history it shows is decoded', async () => {
    const cli = resolveTemporalCli(() => {});
    if (cli.kind !== 'binary') throw new Error('the test run has a Temporal CLI binary (global setup found one)');
    const show = async (extra: string[]) => {
      const args = [
        'workflow',
        'show',
        '-w',
        workflowId,
        '--address',
        inject('temporalAddress'),
        '--namespace',
        inject('temporalNamespace'),
        '--output',
        'json',
        '--codec-endpoint',
        server.url,
        ...extra,
      ];
      const { stdout } = await promisify(execFile)(cli.path, args, { maxBuffer: 32 * 1024 * 1024 }).catch((e: { stdout?: string; stderr?: string }) => ({
        stdout: `${e.stdout ?? ''}${e.stderr ?? ''}`,
      }));
      // Payload data may be shown as JSON or as base64: look through both.
      const decodedData = [...stdout.matchAll(/"data":\s*"([A-Za-z0-9+/=]+)"/g)].map((m) => Buffer.from(m[1]!, 'base64').toString('utf8')).join('\n');
      return `${stdout}\n${decodedData}`;
    };
    expect(await show(['--codec-auth', `Bearer ${TOKEN}`])).toContain(destination);
    expect(await show([])).not.toContain(destination);
  });

  it('does not start open, off loopback, or with a bad origin', () => {
    expect(() => codecServerOptionsFromEnv({ ...ring })).toThrow(/AGENT_CODEC_TOKEN/);
    expect(() => codecServerOptionsFromEnv({ AGENT_CODEC_TOKEN: TOKEN })).toThrow(/AGENT_PAYLOAD_KEYS/);
    expect(() => codecServerOptionsFromEnv({ ...ring, AGENT_CODEC_TOKEN: 'short' })).toThrow(/at least 16/);
    expect(() => codecServerOptionsFromEnv({ ...ring, AGENT_CODEC_TOKEN: TOKEN, AGENT_CODEC_ORIGINS: 'http://ui.example/path' })).toThrow(/not an origin/);
    expect(codecServerOptionsFromEnv({ ...ring, AGENT_CODEC_TOKEN: TOKEN })).toMatchObject({
      origins: ['http://localhost:8233', 'http://127.0.0.1:8233'],
      host: '127.0.0.1',
      port: 8089,
    });
  });

  it('refuses to listen off loopback', async () => {
    const { startCodecServer } = await import('../../worker/codec-server.js');
    await expect(startCodecServer({ codec: loadPayloadCodec(ring)!, token: TOKEN, origins: [UI], host: '0.0.0.0' })).rejects.toThrow(/not a loopback address/);
  });
});
