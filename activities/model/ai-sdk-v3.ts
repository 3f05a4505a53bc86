// Everything that knows the AI SDK's LanguageModelV3 interface (`@ai-sdk/provider` 3, AI SDK 6)
// lives here and nowhere else: the engine's chat turns as a V3 prompt, its functions as V3
// function tools, one `doGenerate` call, and the result and errors read back into the engine's
// neutral shapes. Moving to V4 (AI SDK 7, Node 22) means writing this file again for V4's types;
// the adapter around it (ai-sdk.ts) stays as it is.
//
// `doGenerate` is called directly: no `generateText`, so the SDK never retries behind Temporal's
// back, never executes a tool (the tools have no `execute`) and never asks for tool approval.
import { AISDKError, APICallError, LoadAPIKeyError } from '@ai-sdk/provider';
import type {
  JSONValue,
  LanguageModelV3,
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
} from '@ai-sdk/provider';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { DomainFunctions } from './functions.js';
import type { ModelTurn } from './reply.js';

export type LanguageModel = LanguageModelV3;

export interface GenerateRequest {
  messages: ChatCompletionMessageParam[];
  functions: DomainFunctions;
  /** Declare strict schemas (OpenAI-style constrained decoding) where the contract allows it. */
  strictTools: boolean;
  maxOutputTokens: number;
  abortSignal: AbortSignal;
}

export interface GenerateResult {
  turn: ModelTurn;
  /** As the provider reported them; undefined where it did not say. */
  usage: { inputTokens: number | undefined; outputTokens: number | undefined };
  /** The reply's text and call arguments: what the output side is floored at (usage-floor.ts). */
  producedText: string;
  /**
   * The request body as the provider package put it on the wire (or, from a provider that does
   * not say, the prompt and tools it was given): what the input side is floored at.
   */
  sent: unknown;
}

export function isLanguageModel(value: unknown): value is LanguageModel {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { specificationVersion?: unknown }).specificationVersion === 'v3' &&
    typeof (value as { doGenerate?: unknown }).doGenerate === 'function'
  );
}

export async function generate(model: LanguageModel, request: GenerateRequest): Promise<GenerateResult> {
  const prompt = toPrompt(request.messages);
  const tools = toTools(request.functions, request.strictTools);
  const result = await model.doGenerate({
    prompt,
    tools,
    // Every valid reply is a function call; plain text can only be rejected.
    toolChoice: { type: 'required' },
    maxOutputTokens: request.maxOutputTokens,
    abortSignal: request.abortSignal,
  });
  const calls: ModelTurn['calls'] = [];
  const texts: string[] = [];
  for (const part of result.content) {
    if (part.type === 'text') texts.push(part.text);
    // Provider-executed tools are never declared, so a call the provider ran itself is not ours.
    else if (part.type === 'tool-call' && !part.providerExecuted) calls.push({ name: part.toolName, arguments: part.input });
  }
  const text = texts.join('\n');
  const reason = result.finishReason.unified;
  const turn: ModelTurn = {
    calls,
    text,
    ...(reason === 'length' ? { stopped: 'length' as const } : reason === 'content-filter' ? { stopped: 'content-filter' as const } : {}),
  };
  return {
    turn,
    usage: { inputTokens: result.usage.inputTokens.total, outputTokens: result.usage.outputTokens.total },
    producedText: [text, ...calls.map((c) => `${c.name} ${typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments)}`)]
      .filter(Boolean)
      .join('\n'),
    sent: result.request?.body ?? { prompt, tools },
  };
}

// ---------------------------------------------------------------- the request

function toTools(functions: DomainFunctions, strict: boolean): LanguageModelV3FunctionTool[] {
  return functions.specs.map((spec) => {
    const useStrict = strict && spec.strict !== undefined;
    return {
      type: 'function',
      name: spec.name,
      description: spec.description,
      inputSchema: (useStrict ? spec.strict : spec.loose) as LanguageModelV3FunctionTool['inputSchema'],
      ...(strict ? { strict: useStrict } : {}),
    };
  });
}

/** The engine's chat rendering (chat-render.ts) as a V3 prompt: same turns, same words. */
export function toPrompt(messages: ChatCompletionMessageParam[]): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [];
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        prompt.push({ role: 'system', content: textOf(message.content) });
        break;
      case 'user':
        prompt.push({ role: 'user', content: [{ type: 'text', text: textOf(message.content) }] });
        break;
      case 'assistant': {
        const content: Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] = [];
        const text = textOf(message.content ?? '');
        if (text) content.push({ type: 'text', text });
        for (const call of message.tool_calls ?? []) {
          if (call.type !== 'function') continue;
          toolNames.set(call.id, call.function.name);
          content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.function.name, input: parsedOr(call.function.arguments, {}) });
        }
        prompt.push({ role: 'assistant', content });
        break;
      }
      case 'tool': {
        const part = {
          type: 'tool-result' as const,
          toolCallId: message.tool_call_id,
          toolName: toolNames.get(message.tool_call_id) ?? 'unknown',
          output: toolOutput(textOf(message.content)),
        };
        // The answers to one assistant turn go together, as one tool message.
        const last = prompt.at(-1);
        if (last?.role === 'tool') last.content.push(part);
        else prompt.push({ role: 'tool', content: [part] });
        break;
      }
      default:
        break;
    }
  }
  return prompt;
}

/** Evidence is rendered as JSON: sent as JSON, so a provider that wants an object (Gemini) gets one. */
function toolOutput(content: string): LanguageModelV3ToolResultOutput {
  const value = parsedOr(content, undefined);
  return value === undefined || value === null ? { type: 'text', value: content } : { type: 'json', value: value as JSONValue };
}

function parsedOr<T>(text: string, fallback: T): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return fallback;
  }
}

function textOf(content: string | readonly { type: string; text?: string }[] | null): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('');
}

// ---------------------------------------------------------------- when the call fails

export type CallFailure =
  /** A later attempt may succeed: rate limits, server errors, lost connections. */
  | { kind: 'transient'; message: string; retryAfterMs?: number }
  /** Our request itself was wrong (or the reply unreadable): asking again unchanged would not help. */
  | { kind: 'rejected'; message: string }
  /** The worker is misconfigured (no API key): no run on it can call this model. */
  | { kind: 'config'; message: string }
  /** An abort: the caller knows whose. */
  | { kind: 'other' };

export function classifyFailure(err: unknown): CallFailure {
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    const body = err.message;
    if (status === undefined) return { kind: 'transient', message: `model endpoint unreachable: ${body}${causeText(err)}` };
    // A 2xx that failed: the SDK could not parse or validate the body it got.
    if (status >= 200 && status < 300) return { kind: 'rejected', message: `the model endpoint's reply could not be read: ${body}` };
    const said = `model endpoint said ${status} ${body}`;
    // A key it refuses, a model or path it does not have: every call of every run would get the
    // same answer, so the run stops at once saying so instead of spending its turns on it.
    if (status === 401 || status === 403 || status === 404) {
      const what = status === 404 ? 'the base URL or the model name' : 'the API key';
      return { kind: 'config', message: `model endpoint ${err.url} said ${status}: check ${what} the worker is configured with (${body.slice(0, 200)})` };
    }
    // The statuses a careful client retries; the provider's own `isRetryable` agrees for these.
    if (status === 408 || status === 409 || status === 429 || status >= 500) {
      const retryAfterMs = retryAfter(err.responseHeaders);
      return { kind: 'transient', message: said, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
    }
    return { kind: 'rejected', message: said };
  }
  if (LoadAPIKeyError.isInstance(err)) return { kind: 'config', message: err.message };
  // The reply arrived but was not what the provider's protocol says (a proxy, a half-compatible server).
  if (AISDKError.isInstance(err)) return { kind: 'rejected', message: `the model endpoint's reply could not be read: ${err.message}` };
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) return { kind: 'other' };
  // A lost connection the SDK did not wrap.
  if (err instanceof TypeError && /fetch failed/i.test(err.message))
    return { kind: 'transient', message: `model endpoint unreachable: ${err.message}${causeText(err)}` };
  // Anything else was thrown while reading a reply that arrived (a provider package meeting a
  // body it did not expect throws plain TypeErrors): the run sees a rejected proposal rather
  // than retrying the same unreadable reply without end.
  return { kind: 'rejected', message: `the model endpoint's reply could not be read: ${err instanceof Error ? err.message : String(err)}` };
}

const MAX_RETRY_AFTER_MS = 60_000;

/** A server that says when to come back is believed, within reason. */
function retryAfter(headers: Record<string, string> | undefined): number | undefined {
  const get = (name: string) => Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];
  const ms = Number(get('retry-after-ms') ?? NaN);
  const seconds = Number(get('retry-after') ?? NaN);
  const wait = Number.isFinite(ms) ? ms : Number.isFinite(seconds) ? seconds * 1_000 : undefined;
  return wait !== undefined && wait > 0 ? Math.min(wait, MAX_RETRY_AFTER_MS) : undefined;
}

function causeText(err: Error): string {
  const cause = err.cause;
  if (!(cause instanceof Error)) return '';
  const code = (cause as { code?: unknown }).code;
  return typeof code === 'string' ? ` (${code})` : '';
}
