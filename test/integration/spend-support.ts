// A model on loopback that logs every request as it arrives, for the spend and rate-limit
// tests: spend is asserted from what the server was asked and what it said it used, and the
// rate limit is measured where the calls land, not where they leave. It speaks a small part of
// the OpenAI chat-completions wire format (a JSON decision in the content, usage in tokens);
// the adapter that talks to it is registered on the worker as a custom adapter.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ModelAdapter, ProposeInput, ProposeOutput } from '../../activities/model/index.js';
import type { CompiledContext } from '../../workflows/controller/context.js';

export interface LoggedRequest {
  /** When the request arrived (ms since the epoch, this process's clock). */
  at: number;
  caseId: string;
  team: string | undefined;
  model: string;
}

export interface MeteredModelServer {
  baseUrl: string;
  requests: LoggedRequest[];
  close(): Promise<void>;
}

export interface MeteredReply {
  decision: unknown;
  promptTokens: number;
  completionTokens: number;
}

export type Responder = (request: { caseId: string; team: string | undefined; context: CompiledContext }) => MeteredReply;

export async function startMeteredModelServer(respond: Responder): Promise<MeteredModelServer> {
  const requests: LoggedRequest[] = [];
  const server = createServer((req, res) => {
    const at = Date.now();
    readBody(req)
      .then((text) => {
        const body = JSON.parse(text) as { model: string; messages: { content: string }[]; metadata: { caseId: string; team?: string } };
        requests.push({ at, caseId: body.metadata.caseId, team: body.metadata.team, model: body.model });
        const context = JSON.parse(body.messages[0]?.content ?? '{}') as CompiledContext;
        const reply = respond({ caseId: body.metadata.caseId, team: body.metadata.team, context });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: `chatcmpl-${requests.length}`,
            object: 'chat.completion',
            model: body.model,
            choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify(reply.decision) } }],
            usage: { prompt_tokens: reply.promptTokens, completion_tokens: reply.completionTokens, total_tokens: reply.promptTokens + reply.completionTokens },
          }),
        );
      })
      .catch((err: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(err) } }));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The adapter the worker calls the server with; its usage is what the price table charges. */
export function meteredAdapter(baseUrl: string, model: string): ModelAdapter {
  return async (input: ProposeInput): Promise<ProposeOutput> => {
    const response = await fetch(`${baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model,
        messages: [{ role: 'user', content: JSON.stringify(input.context) }],
        metadata: { caseId: input.caseId, team: input.team },
      }),
    });
    if (!response.ok) throw new Error(`model server answered ${response.status}`);
    const body = (await response.json()) as {
      choices: { message: { content: string } }[];
      usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    };
    const output = {
      reply: JSON.parse(body.choices[0]?.message.content ?? 'null') as unknown,
      tokens: body.usage.total_tokens,
      usage: { inputTokens: body.usage.prompt_tokens, outputTokens: body.usage.completion_tokens },
    };
    return output;
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
