// One loopback HTTP server per provider wire protocol, answering as that provider does and
// recording every request: OpenAI chat completions (what @ai-sdk/openai-compatible speaks), the
// OpenAI Responses API (what @ai-sdk/openai speaks by default), Anthropic messages and Google
// generateContent. The AI SDK's real provider packages are driven through a real socket; the
// replies a test wants are written once, provider-neutrally (`Turn`), and rendered per dialect.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Dialect = 'chat' | 'responses' | 'anthropic' | 'google';

export interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export interface Wire {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** What the model says, whatever the dialect. */
export interface Turn {
  calls?: { name: string; args: Record<string, unknown> | string }[];
  text?: string;
  /** Omitted: the reply carries no usage at all (where the dialect allows it). */
  usage?: { input: number; output: number };
}

export type Answer = Turn | Wire | ((request: Recorded) => Turn | Wire);

export interface ProviderServer {
  dialect: Dialect;
  /** What the provider's `baseURL` setting takes. */
  baseUrl: string;
  requests: Recorded[];
  enqueue(...answers: Answer[]): void;
  /** Forgets the requests seen and the answers still queued: one test's leftovers never answer the next. */
  reset(): void;
  /** Answers every request no queued answer is waiting for (a whole run's worth of turns). */
  fallback?: (request: Recorded) => Turn | Wire;
  close(): Promise<void>;
}

const ROUTES: Record<Dialect, RegExp> = {
  chat: /^\/v1\/chat\/completions$/,
  responses: /^\/v1\/responses$/,
  anthropic: /^\/v1\/messages$/,
  google: /^\/v1beta\/models\/[^/:]+:generateContent$/,
};

/** `port`: listen there (a server started again where the last one was); by default any free port. */
export async function startProviderServer(dialect: Dialect, port = 0): Promise<ProviderServer> {
  const queue: Answer[] = [];
  const requests: Recorded[] = [];
  const self: ProviderServer = {
    dialect,
    baseUrl: '',
    requests,
    enqueue: (...answers) => queue.push(...answers),
    reset: () => {
      requests.length = 0;
      queue.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, errorWire(dialect, 500, `provider server: ${String(err)}`)));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const request: Recorded = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: parse(text) };
    requests.push(request);
    if (req.method !== 'POST' || !ROUTES[dialect].test(request.path.split('?')[0] ?? '')) {
      return send(res, errorWire(dialect, 404, `no route ${req.method} ${request.path}`));
    }
    const next = queue.shift() ?? self.fallback;
    if (!next) return send(res, errorWire(dialect, 500, 'provider server: no answer queued'));
    const answer = typeof next === 'function' ? next(request) : next;
    send(res, isWire(answer) ? answer : turnWire(dialect, answer));
  }

  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  self.baseUrl = `http://127.0.0.1:${bound}/${dialect === 'google' ? 'v1beta' : 'v1'}`;
  return self;
}

function isWire(answer: Turn | Wire): answer is Wire {
  return typeof (answer as Wire).status === 'number';
}

function send(res: ServerResponse, wire: Wire): void {
  if (res.destroyed) return;
  res.writeHead(wire.status, { 'content-type': 'application/json', ...wire.headers });
  res.end(typeof wire.body === 'string' ? wire.body : JSON.stringify(wire.body));
}

function parse(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : { raw: text };
  } catch {
    return { raw: text };
  }
}

/** Decisions as a provider would carry them: function calls (finish and escalate included). */
export function asTurn(reply: unknown): Turn {
  const d = reply as {
    type?: string;
    calls?: { tool: string; args: Record<string, unknown>; sources?: unknown; derive?: unknown }[];
    claim?: unknown;
    evidence?: unknown;
    summary?: unknown;
    reason?: unknown;
  };
  if (d.type === 'call' && Array.isArray(d.calls)) {
    // A call's sources and derivations ride in its function's reserved properties, as a provider's model writes them.
    const extra = (c: { sources?: unknown; derive?: unknown }) => ({
      ...(c.sources ? { _sources: c.sources } : {}),
      ...(c.derive ? { _derive: c.derive } : {}),
    });
    return { calls: d.calls.map((c) => ({ name: c.tool, args: { ...c.args, ...extra(c) } })), usage: { input: 500, output: 20 } };
  }
  if (d.type === 'finish')
    return {
      calls: [{ name: 'finish', args: { claim: d.claim, evidence: d.evidence, ...(d.summary !== undefined ? { summary: d.summary } : {}) } }],
      usage: { input: 500, output: 20 },
    };
  if (d.type === 'escalate') return { calls: [{ name: 'escalate', args: { reason: d.reason } }], usage: { input: 500, output: 20 } };
  return { text: JSON.stringify(reply), usage: { input: 500, output: 20 } };
}

// ---------------------------------------------------------------- replies, per dialect

let seq = 0;
const argsText = (args: Record<string, unknown> | string) => (typeof args === 'string' ? args : JSON.stringify(args));
const argsObject = (args: Record<string, unknown> | string) => (typeof args === 'string' ? (JSON.parse(args) as Record<string, unknown>) : args);

export function turnWire(dialect: Dialect, turn: Turn): Wire {
  seq += 1;
  const calls = turn.calls ?? [];
  const u = turn.usage;
  switch (dialect) {
    case 'chat':
      return {
        status: 200,
        body: {
          id: `chatcmpl-${seq}`,
          object: 'chat.completion',
          created: 1_700_000_000,
          model: 'recorded-model',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: turn.text ?? null,
                ...(calls.length
                  ? { tool_calls: calls.map((c, i) => ({ id: `call_${seq}_${i}`, type: 'function', function: { name: c.name, arguments: argsText(c.args) } })) }
                  : {}),
              },
              finish_reason: calls.length ? 'tool_calls' : 'stop',
            },
          ],
          ...(u ? { usage: { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output } } : {}),
        },
      };
    case 'responses':
      return {
        status: 200,
        body: {
          id: `resp_${seq}`,
          object: 'response',
          created_at: 1_700_000_000,
          status: 'completed',
          model: 'recorded-model',
          incomplete_details: null,
          output: [
            ...(turn.text
              ? [
                  {
                    type: 'message',
                    role: 'assistant',
                    id: `msg_${seq}`,
                    status: 'completed',
                    content: [{ type: 'output_text', text: turn.text, annotations: [] }],
                  },
                ]
              : []),
            ...calls.map((c, i) => ({
              type: 'function_call',
              id: `fc_${seq}_${i}`,
              call_id: `call_${seq}_${i}`,
              name: c.name,
              arguments: argsText(c.args),
              status: 'completed',
            })),
          ],
          ...(u
            ? {
                usage: {
                  input_tokens: u.input,
                  output_tokens: u.output,
                  total_tokens: u.input + u.output,
                  input_tokens_details: { cached_tokens: 0 },
                  output_tokens_details: { reasoning_tokens: 0 },
                },
              }
            : {}),
        },
      };
    case 'anthropic':
      return {
        status: 200,
        body: {
          type: 'message',
          id: `msg_${seq}`,
          role: 'assistant',
          model: 'recorded-model',
          content: [
            ...(turn.text ? [{ type: 'text', text: turn.text }] : []),
            ...calls.map((c, i) => ({ type: 'tool_use', id: `toolu_${seq}_${i}`, name: c.name, input: argsObject(c.args) })),
          ],
          stop_reason: calls.length ? 'tool_use' : 'end_turn',
          stop_sequence: null,
          // Anthropic always reports usage; a missing count is still a number in its schema.
          usage: { input_tokens: u?.input ?? 0, output_tokens: u?.output ?? 0 },
        },
      };
    case 'google':
      return {
        status: 200,
        body: {
          candidates: [
            {
              content: {
                role: 'model',
                parts: [...(turn.text ? [{ text: turn.text }] : []), ...calls.map((c) => ({ functionCall: { name: c.name, args: argsObject(c.args) } }))],
              },
              finishReason: 'STOP',
              index: 0,
            },
          ],
          ...(u ? { usageMetadata: { promptTokenCount: u.input, candidatesTokenCount: u.output, totalTokenCount: u.input + u.output } } : {}),
        },
      };
  }
}

export function errorWire(dialect: Dialect, status: number, message: string, headers?: Record<string, string>): Wire {
  const withHeaders = headers ? { headers } : {};
  switch (dialect) {
    case 'chat':
    case 'responses':
      return {
        status,
        body: { error: { message, type: status === 429 ? 'rate_limit_exceeded' : 'invalid_request_error', param: null, code: null } },
        ...withHeaders,
      };
    case 'anthropic':
      return { status, body: { type: 'error', error: { type: status === 429 ? 'rate_limit_error' : 'invalid_request_error', message } }, ...withHeaders };
    case 'google':
      return { status, body: { error: { code: status, message, status: status === 429 ? 'RESOURCE_EXHAUSTED' : 'INVALID_ARGUMENT' } }, ...withHeaders };
  }
}

// ---------------------------------------------------------------- reading what was sent

/** The request, read back into the same few things whatever the dialect. */
export interface SentRequest {
  system: string;
  /** Declared function names, in order, and each one's schema. */
  tools: { name: string; description: string; schema: Record<string, unknown> }[];
  /** Each tool result sent back: the call id it answers and its content as JSON text. */
  toolResults: { callId: string; content: string }[];
  /** Whether the request forces a tool call. */
  forcesToolCall: boolean;
  /** All the text of the conversation, for searching. */
  text: string;
  apiKey: string | undefined;
}

// Recorded wire bodies are read loosely: each dialect's shape is what the test asserts on.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

export function readRequest(dialect: Dialect, r: Recorded): SentRequest {
  const b = r.body as Loose;
  const header = (name: string) => {
    const v = r.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  switch (dialect) {
    case 'chat': {
      const messages = (b.messages ?? []) as Loose[];
      return {
        system: messages
          .filter((m) => m.role === 'system')
          .map((m) => String(m.content))
          .join('\n'),
        tools: ((b.tools ?? []) as Loose[]).map((t) => ({ name: t.function.name, description: t.function.description, schema: t.function.parameters })),
        toolResults: messages.filter((m) => m.role === 'tool').map((m) => ({ callId: m.tool_call_id, content: String(m.content) })),
        forcesToolCall: b.tool_choice === 'required',
        text: JSON.stringify(messages),
        apiKey: header('authorization')?.replace(/^Bearer /, ''),
      };
    }
    case 'responses': {
      const input = (b.input ?? []) as Loose[];
      return {
        system: input
          .filter((m) => m.role === 'system' || m.role === 'developer')
          .map((m) => String(m.content))
          .join('\n'),
        tools: ((b.tools ?? []) as Loose[]).map((t) => ({ name: t.name, description: t.description, schema: t.parameters })),
        toolResults: input.filter((m) => m.type === 'function_call_output').map((m) => ({ callId: m.call_id, content: String(m.output) })),
        forcesToolCall: b.tool_choice === 'required',
        text: JSON.stringify(input),
        apiKey: header('authorization')?.replace(/^Bearer /, ''),
      };
    }
    case 'anthropic': {
      const messages = (b.messages ?? []) as Loose[];
      const blocks = messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])) as Loose[];
      const system = Array.isArray(b.system) ? (b.system as Loose[]).map((s) => s.text).join('\n') : String(b.system ?? '');
      return {
        system,
        tools: ((b.tools ?? []) as Loose[]).map((t) => ({ name: t.name, description: t.description, schema: t.input_schema })),
        toolResults: blocks
          .filter((c) => c.type === 'tool_result')
          .map((c) => ({ callId: c.tool_use_id, content: typeof c.content === 'string' ? c.content : (c.content as Loose[]).map((p) => p.text).join('') })),
        forcesToolCall: b.tool_choice?.type === 'any',
        text: JSON.stringify(messages),
        apiKey: header('x-api-key'),
      };
    }
    case 'google': {
      const contents = (b.contents ?? []) as Loose[];
      const parts = contents.flatMap((c) => c.parts ?? []) as Loose[];
      const declarations = ((b.tools ?? []) as Loose[]).flatMap((t) => t.functionDeclarations ?? []) as Loose[];
      return {
        system: ((b.systemInstruction?.parts ?? []) as Loose[]).map((p) => p.text).join('\n'),
        tools: declarations.map((d) => ({ name: d.name, description: d.description, schema: d.parameters })),
        // Gemini answers a call by function name, not id; the name stands in for the id.
        toolResults: parts
          .filter((p) => p.functionResponse)
          .map((p) => ({ callId: p.functionResponse.name, content: JSON.stringify(p.functionResponse.response) })),
        forcesToolCall: b.toolConfig?.functionCallingConfig?.mode === 'ANY',
        text: JSON.stringify(contents),
        apiKey: header('x-goog-api-key'),
      };
    }
  }
}
