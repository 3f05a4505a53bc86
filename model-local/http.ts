// The HTTP face: OpenAI's routes on 127.0.0.1, one completion at a time (the model has one
// context sequence and one thread budget), a client that goes away stopping its generation.
import { Buffer } from 'node:buffer';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Session } from './session.js';
import { BadRequest, parseChatRequest } from './wire.js';

const MAX_BODY = 8 << 20;

export interface HttpOptions {
  session: Session;
  modelId: string;
  log: (message: string) => void;
}

export function chatServer({ session, modelId, log }: HttpOptions): Server {
  const serialized = queue();
  const server = createServer((req, res) => {
    void route(req, res).catch((err: unknown) => {
      if (err instanceof BadRequest) return error(res, 400, err.message);
      if (res.destroyed) return log(`request dropped: ${messageOf(err)}`);
      log(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return error(res, 500, messageOf(err), 'server_error');
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/\/+$/, '');
    if (req.method === 'GET' && (path === '/health' || path === '/v1/health')) return send(res, 200, { status: 'ok', model: modelId });
    if (req.method === 'GET' && path === '/v1/models') {
      return send(res, 200, { object: 'list', data: [{ id: modelId, object: 'model', created: 0, owned_by: 'model-local' }] });
    }
    if (path !== '/v1/chat/completions') return error(res, 404, `no route ${req.method} ${path}`, 'not_found_error');
    if (req.method !== 'POST') return error(res, 405, 'use POST');
    const request = parseChatRequest(await readJson(req));
    // A client that gives up (timeout, cancellation) stops its generation and frees the queue.
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort(new Error('client closed the connection'));
    });
    const reply = await serialized(() => {
      if (abort.signal.aborted) throw abort.signal.reason;
      return session.complete(request, abort.signal);
    });
    send(res, 200, reply);
  }

  server.requestTimeout = 0; // generations on one CPU thread can take minutes
  server.headersTimeout = 60_000;
  return server;
}

/** Runs the functions one after another, whatever becomes of each. */
function queue(): <T>(fn: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (fn) => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY) throw new BadRequest(`request body over ${MAX_BODY} bytes`);
    chunks.push(buf);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new BadRequest('request body is not JSON');
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function error(res: ServerResponse, status: number, message: string, type = 'invalid_request_error'): void {
  send(res, status, { error: { message, type, param: null, code: null } });
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
