// The codec endpoint for Temporal's Web UI and CLI: once payloads are encrypted, the UI shows
// ciphertext unless it can ask a server holding the keys to decode them. This serves Temporal's
// codec server protocol (`POST /encode`, `POST /decode`, optionally under a namespace segment,
// bodies `{ "payloads": [...] }` in proto3 JSON, so bytes are base64) with the same codec the
// workers use. Because one call turns ciphertext into case data, it answers only a caller with
// the bearer token, lets only the configured Web UI origins read its answers from a browser (no
// CORS headers for anyone else, and a request from another origin is refused outright), asks a
// custom `authorize` about the namespace in the path (a header naming another is refused), and
// listens on loopback only: put it behind your own TLS proxy to reach it from elsewhere.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { z } from 'zod';
import { AgentWorkerError } from '../activities/worker-error.js';
import { PayloadDecryptError, UnknownPayloadKeyError } from './payload-codec.js';

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** The bearer token a caller must send (`Authorization: Bearer <token>`). */
  token?: string;
  /**
   * Instead of one shared token: your own check of the `Authorization` header, e.g. verifying
   * the user's OIDC access token the Web UI forwards when its "pass access token" is on. The
   * namespace is the one the request is for: its path segment (`/<ns>/decode`), else its
   * `X-Namespace` header; a request whose header names another namespace than its path is
   * refused before this is asked.
   */
  authorize?: (authorization: string | undefined, namespace: string | undefined) => boolean | Promise<boolean>;
  /** Web UI origins (scheme://host:port) whose pages may call this server, e.g. http://localhost:8233. */
  origins: readonly string[];
  /** A loopback address; default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port (the URL says which). */
  port?: number;
  /** Default 4 MiB. */
  maxBodyBytes?: number;
}

export interface CodecServer {
  url: string;
  close(): Promise<void>;
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost)$/;
const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
/** `/decode`, `/encode`, or the same under one namespace segment (the CLI's endpoint templating). */
const ROUTE = /^(?:\/([^/]+))?\/(encode|decode)$/;

const Base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'base64');
const WirePayload = z.object({
  metadata: z.record(z.string(), Base64).nullish(),
  data: Base64.nullish(),
});
const CodecRequest = z.object({ payloads: z.array(WirePayload).max(10_000) });
type WirePayload = z.infer<typeof WirePayload>;

/** The codec server's settings cannot be used (not loopback, no token, a token too short): it refuses to start. */
export class CodecServerConfigError extends AgentWorkerError {
  static override readonly errorName: string = 'CodecServerConfigError';
}

export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.test(host))
    throw new CodecServerConfigError(
      `codec server: ${host} is not a loopback address; it listens on loopback only (put a TLS proxy in front to reach it from elsewhere)`,
    );
  const { token, authorize } = options;
  if ((token === undefined) === (authorize === undefined))
    throw new CodecServerConfigError('codec server: give exactly one of token and authorize; it never runs open');
  if (token !== undefined && token.length < 16) throw new CodecServerConfigError('codec server: the token must be at least 16 characters');
  const origins = new Set(options.origins.map(normalOrigin));
  const expected = token === undefined ? undefined : digest(`Bearer ${token}`);
  const allows = async (req: IncomingMessage, namespace: string | undefined): Promise<boolean> => {
    const header = req.headers.authorization;
    if (expected) return matches(header, expected);
    return (await authorize?.(header, namespace)) === true;
  };
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      // Whatever went wrong, the caller learns no more than that it did.
      if (!res.headersSent) send(res, 500, { error: 'internal', message: 'the codec server failed' });
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const origin = req.headers.origin;
    const allowed = origin !== undefined && origins.has(normalOrigin(origin));
    // A page of another origin gets nothing it could use, not even a readable refusal.
    if (origin !== undefined && !allowed) return send(res, 403, { error: 'origin', message: 'origin not allowed' });
    if (allowed) corsHeaders(req, res, origin);
    const matched = ROUTE.exec(new URL(req.url ?? '/', 'http://codec').pathname);
    const route = matched?.[2] as 'encode' | 'decode' | undefined;
    if (req.method === 'OPTIONS') {
      // A preflight carries no credentials; it is answered for an allowed origin only.
      if (!allowed || !route) return send(res, 403, { error: 'preflight', message: 'preflight refused' });
      res.writeHead(204).end();
      return;
    }
    if (!route) return send(res, 404, { error: 'not_found', message: 'POST /encode or /decode' });
    if (req.method !== 'POST') return send(res, 405, { error: 'method', message: 'POST only' }, { Allow: 'POST, OPTIONS' });
    // The namespace the caller is let in for is the one whose payloads it asks about: a header
    // naming another than the path would have `authorize` judge one namespace and serve another.
    const target = requestNamespace(matched?.[1], req.headers['x-namespace']);
    if (!target) return send(res, 400, { error: 'namespace_mismatch', message: 'the X-Namespace header names another namespace than the path' });
    if (!(await allows(req, target.namespace)))
      return send(res, 401, { error: 'unauthorized', message: 'a bearer token is required' }, { 'WWW-Authenticate': 'Bearer' });
    const body = await readBody(req, maxBody);
    if (body === 'too_large') return send(res, 413, { error: 'too_large', message: `bodies are at most ${maxBody} bytes` });
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      return send(res, 400, { error: 'bad_request', message: 'the body is not JSON' });
    }
    const parsed = CodecRequest.safeParse(json);
    if (!parsed.success) return send(res, 400, { error: 'bad_request', message: 'expected { "payloads": [{ "metadata": { ...base64 }, "data": base64 }] }' });
    const payloads = parsed.data.payloads.map(fromWire);
    let out: Payload[];
    try {
      out = route === 'encode' ? await options.codec.encode(payloads) : await options.codec.decode(payloads);
    } catch (err) {
      if (UnknownPayloadKeyError.isInstance(err)) return send(res, 422, { error: 'unknown_key', message: err.message, keyId: err.keyId });
      if (PayloadDecryptError.isInstance(err)) return send(res, 422, { error: 'decrypt_failed', message: err.message });
      throw err;
    }
    send(res, 200, { payloads: out.map(toWire) });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The namespace a request is for: its path segment, else its X-Namespace header. Null (refused)
 * when both are there and differ, or the segment does not decode.
 */
function requestNamespace(segment: string | undefined, header: string | string[] | undefined): { namespace: string | undefined } | null {
  const named = typeof header === 'string' ? header : undefined;
  if (segment === undefined) return { namespace: named };
  let path: string;
  try {
    path = decodeURIComponent(segment);
  } catch {
    return null;
  }
  return named !== undefined && named !== path ? null : { namespace: path };
}

function corsHeaders(req: IncomingMessage, res: ServerResponse, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin');
  // The Web UI's "include cross-origin credentials" setting sends cookies; allow it to.
  res.setHeader('Access-Control-Allow-Credentials', 'true');
  res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Namespace');
  res.setHeader('Access-Control-Max-Age', '600');
  // A public UI origin calling a loopback server: Chrome's Private Network Access preflight.
  if (req.headers['access-control-request-private-network'] === 'true') res.setHeader('Access-Control-Allow-Private-Network', 'true');
}

function normalOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Compares digests, so how long the comparison takes says nothing about the token. */
function matches(header: string | undefined, expected: Buffer): boolean {
  if (!header) return false;
  return timingSafeEqual(digest(header.trim()), expected);
}

function readBody(req: IncomingMessage, max: number): Promise<string | 'too_large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) over = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? 'too_large' : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

function fromWire(p: WirePayload): Payload {
  const metadata: Record<string, Uint8Array> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) metadata[k] = Buffer.from(v, 'base64');
  return { metadata, data: Buffer.from(p.data ?? '', 'base64') };
}

function toWire(p: Payload): { metadata: Record<string, string>; data: string } {
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) if (v) metadata[k] = Buffer.from(v).toString('base64');
  return { metadata, data: Buffer.from(p.data ?? new Uint8Array()).toString('base64') };
}
