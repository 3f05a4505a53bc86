// A chat-completions endpoint that says exactly what a test queued, so the adapter is driven
// through the AI SDK's OpenAI-compatible provider and a real socket, with no model and no network.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CannedReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Hold the reply this long first: for timeouts. */
  delayMs?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** Parsed JSON, or the raw text when it was not JSON. */
  body: unknown;
}

export type Responder = (request: RecordedRequest) => CannedReply;

export interface FakeChatServer {
  /** What the adapter takes as baseUrl: http://127.0.0.1:<port>/v1 */
  baseUrl: string;
  requests: RecordedRequest[];
  /** A responder builds its reply from the request: for replies that cite what the run produced. */
  enqueue(...replies: (CannedReply | Responder)[]): void;
  close(): Promise<void>;
}

export async function startFakeChatServer(): Promise<FakeChatServer> {
  const queue: (CannedReply | Responder)[] = [];
  const requests: RecordedRequest[] = [];

  const server = createServer((req, res) => {
    // A responder that throws is a broken test: say so in a reply rather than hang the request.
    handle(req, res).catch((err: unknown) => send(res, { status: 500, body: errorBody(`fake chat server: ${String(err)}`, 'server_error') }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const path = req.url ?? '';
    const request: RecordedRequest = { method: req.method ?? '', path, headers: req.headers, body: parseJson(text) };
    requests.push(request);
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return send(res, { status: 404, body: errorBody(`no route ${req.method} ${path}`, 'not_found') });
    }
    // Running out is loud: a 500 the adapter treats as transient, so the test sees a throw.
    const next = queue.shift() ?? { status: 500, body: errorBody('fake chat server: no canned reply queued', 'server_error') };
    const reply = typeof next === 'function' ? next(request) : next;
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    send(res, reply);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections(); // a delayed reply must not hold the test run open
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

function send(res: ServerResponse, reply: CannedReply): void {
  if (res.destroyed) return; // the client gave up (timeout) while the reply was held
  const payload = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  res.end(payload);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// ---------------------------------------------------------------- reply bodies

export interface FakeToolCall {
  name: string;
  /** Sent as is: pass a string to send malformed JSON. */
  arguments: string | Record<string, unknown>;
}

export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

let completionSeq = 0;

function completion(message: Record<string, unknown>, finishReason: string, usage?: FakeUsage): Record<string, unknown> {
  completionSeq += 1;
  return {
    id: `chatcmpl-fake-${completionSeq}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'fake-model',
    choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, finish_reason: finishReason, logprobs: null }],
    ...(usage ? { usage } : {}),
  };
}

export function toolCallsReply(calls: FakeToolCall[], usage?: FakeUsage): CannedReply {
  const toolCalls = calls.map((c, i) => ({
    id: `call_${completionSeq + 1}_${i}`,
    type: 'function',
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
  }));
  return { status: 200, body: completion({ tool_calls: toolCalls }, 'tool_calls', usage) };
}

export function textReply(content: string, usage?: FakeUsage): CannedReply {
  return { status: 200, body: completion({ content }, 'stop', usage) };
}

export function refusalReply(refusal: string): CannedReply {
  return { status: 200, body: completion({ refusal }, 'stop') };
}

export function errorReply(status: number, message: string, headers?: Record<string, string>): CannedReply {
  return { status, body: errorBody(message, status === 429 ? 'rate_limit_exceeded' : 'invalid_request_error'), ...(headers ? { headers } : {}) };
}

function errorBody(message: string, type: string): Record<string, unknown> {
  return { error: { message, type, param: null, code: null } };
}
