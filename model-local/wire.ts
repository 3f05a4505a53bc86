// The OpenAI chat-completions wire, as far as this server speaks it: the request body is parsed
// with these schemas (it comes from another process), and replies are built to the types below.
// Objects are loose: clients send fields this server has no use for, and those are ignored.
import { z } from 'zod';

/** A request this server refuses, answered with a 400 and the message. */
export class BadRequest extends Error {
  override readonly name = 'BadRequest';
}

const textPart = z.looseObject({ type: z.literal('text'), text: z.string() });
const content = z.union([z.string(), z.array(textPart, { error: 'only text content parts are supported' })]).nullish();

const toolCall = z.looseObject({
  id: z.string().optional(),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string().nullish() }),
});

const message = z.discriminatedUnion(
  'role',
  [
    z.looseObject({ role: z.enum(['system', 'developer', 'user']), content }),
    z.looseObject({ role: z.literal('assistant'), content, tool_calls: z.array(toolCall).nullish() }),
    z.looseObject({ role: z.literal('tool'), content, tool_call_id: z.string().nullish() }),
  ],
  { error: 'must be system, developer, user, assistant or tool' },
);

export const functionTool = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a function name is 1 to 64 of [A-Za-z0-9_.-]'),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
  }),
});

const toolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function').optional(), function: z.looseObject({ name: z.string() }) }),
]);

const positiveInt = z.number().int().positive();

export const chatRequest = z.looseObject({
  messages: z.array(message).min(1, 'must be a non-empty array'),
  tools: z.array(functionTool).nullish(),
  tool_choice: toolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  max_tokens: positiveInt.nullish(),
  max_completion_tokens: positiveInt.nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  seed: z.number().int().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  frequency_penalty: z.number().nullish(),
  presence_penalty: z.number().nullish(),
  stream: z.literal(false, { error: 'stream: true is not supported by this server' }).nullish(),
  n: z.literal(1, { error: 'only n = 1 is supported' }).nullish(),
});

export type ChatRequest = z.infer<typeof chatRequest>;
export type ChatMessage = ChatRequest['messages'][number];
export type FunctionTool = z.infer<typeof functionTool>;
export type ToolChoice = z.infer<typeof toolChoice>;

export function parseChatRequest(body: unknown): ChatRequest {
  const parsed = chatRequest.safeParse(body);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  const where = first?.path.length ? `${first.path.map(String).join('.')}: ` : '';
  throw new BadRequest(`${where}${first?.message ?? 'invalid request'}`);
}

export interface ToolCallOut {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  system_fingerprint: string;
  choices: {
    index: 0;
    message: { role: 'assistant'; content: string | null; tool_calls?: ToolCallOut[]; refusal: null };
    logprobs: null;
    finish_reason: 'length' | 'tool_calls' | 'stop';
  }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}
