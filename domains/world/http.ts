// Small HTTP plumbing shared by the route files: route shapes, replies,
// typed 4xx errors, body validation and path matching.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { Op } from './contract.js';

export interface Reply {
  status: number;
  body: unknown;
}

// params holds the query string too; path parameters win on a name clash.
export interface RouteInput {
  params: Record<string, string>;
  body: unknown;
}

// Handlers are synchronous on purpose: a handler runs inside one SQLite
// transaction and nothing can interleave with it.
export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  handle(input: RouteInput): Reply;
}

// A domain route is what agent tools call: it is logged, and faults and holds apply to it.
export interface DomainRoute extends Route {
  op: Op;
  // Who the request is about. Reads the *unvalidated* input, so that even a
  // rejected request is logged (and fault-matched) under the right key.
  subject(input: RouteInput): { key: string | null; idempotencyKey: string | null };
}

// Thrown by handlers for expected client-side failures; the server turns it
// into a reply. Anything else thrown is a bug and becomes a 500.
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: { error: string; [k: string]: unknown },
  ) {
    super(body.error);
  }
}

export const ok = (body: unknown): Reply => ({ status: 200, body });

export function param(input: RouteInput, name: string): string {
  const value = input.params[name];
  if (value === undefined) throw new HttpError(400, { error: `missing_param_${name}` });
  return value;
}

// Pulls a string field out of a body that has not been validated yet.
export function peek(body: unknown, field: string): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const value = (body as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : null;
}

// Runs a handler and turns its outcome into a reply: HttpError is an expected
// refusal, anything else is a bug that must not take the process down.
export function runHandler(handle: () => Reply): Reply {
  try {
    return handle();
  } catch (err) {
    if (err instanceof HttpError) return { status: err.status, body: err.body };
    console.error('world: handler failed', err);
    return { status: 500, body: { error: err instanceof Error ? err.message : 'internal_error' } };
  }
}

export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new HttpError(400, { error: 'invalid_body', issues: parsed.error.issues });
  return parsed.data;
}

const MAX_BODY_BYTES = 1_000_000;

// Resolves to undefined for an empty body; rejects with HttpError for
// oversized or malformed JSON so a bad client can never crash the process.
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  // An oversized body is still drained: leaving the loop early would destroy
  // the socket, and the client would see a reset instead of the 413.
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) throw new HttpError(413, { error: 'body_too_large' });
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, { error: 'malformed_json' });
  }
}

// The client may have given up (timeouts, dropped sockets, held requests), so
// writing is best-effort and silent when nobody is listening any more.
export function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed || res.writableEnded) return;
  const payload = JSON.stringify(reply.body);
  res.writeHead(reply.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

// Matches '/a/:x/b' against a concrete path; returns decoded params or null.
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (const [i, segment] of want.entries()) {
    const actual = got[i] ?? '';
    if (segment.startsWith(':')) {
      if (actual === '') return null;
      try {
        params[segment.slice(1)] = decodeURIComponent(actual);
      } catch {
        throw new HttpError(400, { error: 'malformed_path' });
      }
    } else if (segment !== actual) {
      return null;
    }
  }
  return params;
}
