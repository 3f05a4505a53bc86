// The model session: one loaded GGUF, one context sequence, one LlamaChat, and what one chat
// completion is on them. Calls the model wrote as text instead of in the call syntax are read
// with the engine's own reader (activities/model/text-calls.ts), and the nulls the grammar wrote
// for optional properties are dropped with the engine's own rule (optional-nulls.ts), so a reply
// means here what it would mean to the engine's adapters.
import { randomBytes } from 'node:crypto';
import { dropAbsentNulls } from '../activities/model/optional-nulls.js';
import { textCalls } from '../activities/model/text-calls.js';
import { functionsFrom, historyFrom } from './chat-request.js';
import type { ChatHistoryItem, ChatModelFunctions, GenerateOptions, LlamaChat, LlamaContextSequence, LlamaModel, NodeLlamaCpp } from './llama-api.js';
import { qwenToolsChatWrapper, type QwenToolsChatWrapper } from './qwen-wrapper.js';
import { BadRequest, type ChatCompletion, type ChatRequest, type ToolCallOut } from './wire.js';

export interface SessionOptions {
  modelFile: string;
  modelId: string;
  /** For system_fingerprint. */
  variantId: string;
  threads: number;
  contextSize: number;
  /** Calls allowed in one reply unless the request says parallel_tool_calls: false. */
  maxCalls: number;
  debugPrompt: boolean;
  log: (message: string) => void;
}

export interface Session {
  complete(request: ChatRequest, signal: AbortSignal): Promise<ChatCompletion>;
  dispose(): Promise<void>;
}

export async function openSession(lib: NodeLlamaCpp, o: SessionOptions): Promise<Session> {
  o.log(`loading ${o.modelFile} (gpuLayers 0, threads ${o.threads}, context ${o.contextSize}) ...`);
  const loadStarted = Date.now();
  const llama = await lib.getLlama({ gpu: false, build: 'never', maxThreads: o.threads, logLevel: lib.LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath: o.modelFile, gpuLayers: 0 });
  const context = await model.createContext({ contextSize: o.contextSize, threads: o.threads, sequences: 1 });
  const sequence = context.getSequence();
  const wrapper = qwenToolsChatWrapper(lib);
  const chat = new lib.LlamaChat({ contextSequence: sequence, chatWrapper: wrapper });
  o.log(`loaded in ${((Date.now() - loadStarted) / 1000).toFixed(1)} s`);
  return {
    complete: (request, signal) => complete({ lib, model, sequence, wrapper, chat, o }, request, signal),
    dispose: () => llama.dispose(),
  };
}

interface Loaded {
  lib: NodeLlamaCpp;
  model: LlamaModel;
  sequence: LlamaContextSequence;
  wrapper: QwenToolsChatWrapper;
  chat: LlamaChat;
  o: SessionOptions;
}

async function complete(s: Loaded, body: ChatRequest, signal: AbortSignal): Promise<ChatCompletion> {
  const { o } = s;
  const history = historyFrom(body.messages);
  const { functions, tools, force, documented } = functionsFrom(body.tools, body.tool_choice);
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  const stop = body.stop == null ? [] : Array.isArray(body.stop) ? body.stop : [body.stop];

  s.wrapper.forceCall = force;
  s.wrapper.documentedTools = documented;
  const promptTokens = countPromptTokens(s, history, functions);
  if (promptTokens >= o.contextSize) throw new BadRequest(`the prompt is ${promptTokens} tokens; this server's context is ${o.contextSize} (MODEL_CONTEXT)`);
  const outputBefore = s.sequence.tokenMeter.usedOutputTokens;
  const started = Date.now();
  const result = await s.chat.generateResponse(history, {
    ...(functions ? { functions, maxParallelFunctionCalls: body.parallel_tool_calls === false ? 1 : o.maxCalls } : {}),
    maxTokens: maxTokens ?? Math.max(16, o.contextSize - promptTokens),
    temperature: body.temperature ?? 0, // greedy unless asked: reproducible
    // No repeat penalty unless asked: calls must copy ids and names from the context verbatim.
    repeatPenalty: penalties(body),
    ...(body.top_p != null ? { topP: body.top_p } : {}),
    ...(body.seed != null ? { seed: body.seed } : {}),
    ...(stop.some(Boolean) ? { customStopTriggers: stop.filter(Boolean) } : {}),
    signal,
  });
  const completionTokens = s.sequence.tokenMeter.usedOutputTokens - outputBefore;

  let text = result.response;
  let calls = (result.functionCalls ?? []).map((c) => ({ name: c.functionName, args: c.params }));
  let fromText = false;
  if (calls.length === 0 && functions) {
    const written = textCalls(text, new Set(Object.keys(functions)));
    if (written) {
      calls = written.calls;
      text = written.rest;
      fromText = true;
    }
  }
  // Small models sometimes repeat the very same call until the limit: one of each is kept.
  const seen = new Set<string>();
  const toolCalls: ToolCallOut[] = [];
  for (const c of calls) {
    const parameters = tools.get(c.name)?.parameters;
    const args = JSON.stringify(dropAbsentNulls(c.args ?? {}, parameters));
    const key = `${c.name}\u0000${args}`;
    if (seen.has(key)) continue;
    seen.add(key);
    toolCalls.push({ id: `call_${randomBytes(9).toString('base64url')}`, type: 'function', function: { name: c.name, arguments: args } });
  }
  const dropped = calls.length - toolCalls.length;
  const finishReason = result.metadata.stopReason === 'maxTokens' ? 'length' : toolCalls.length ? 'tool_calls' : 'stop';
  o.log(
    `${finishReason}: ${promptTokens} prompt tokens, ${completionTokens} generated, ${((Date.now() - started) / 1000).toFixed(1)} s` +
      (toolCalls.length ? `; calls ${toolCalls.map((c) => c.function.name).join(', ')}${fromText ? ' (read from its text)' : ''}` : '') +
      (dropped ? `; dropped ${dropped} repeated call(s)` : ''),
  );
  return {
    id: `chatcmpl-${randomBytes(12).toString('base64url')}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: o.modelId,
    system_fingerprint: `node-llama-cpp-${o.variantId}`,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text.trim() === '' && toolCalls.length ? null : text,
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          refusal: null,
        },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

/** OpenAI's penalties, or none: node-llama-cpp's repeat penalty is off unless one is asked for. */
export function penalties(body: Pick<ChatRequest, 'frequency_penalty' | 'presence_penalty'>): GenerateOptions['repeatPenalty'] {
  const frequencyPenalty = body.frequency_penalty != null && body.frequency_penalty > 0 ? body.frequency_penalty : undefined;
  const presencePenalty = body.presence_penalty != null && body.presence_penalty > 0 ? body.presence_penalty : undefined;
  if (frequencyPenalty === undefined && presencePenalty === undefined) return false;
  return { penalty: 1, ...(frequencyPenalty ? { frequencyPenalty } : {}), ...(presencePenalty ? { presencePenalty } : {}) };
}

function countPromptTokens(s: Loaded, history: ChatHistoryItem[], functions: ChatModelFunctions | undefined): number {
  const state = s.wrapper.generateContextState({ chatHistory: history, ...(functions ? { availableFunctions: functions } : {}), documentFunctionParams: true });
  // A forced call's prefix is part of what the model reads before its first token.
  const prompt = state.functionCall?.initiallyEngaged ? s.lib.LlamaText([state.contextText, s.wrapper.settings.functions.call.prefix]) : state.contextText;
  if (s.o.debugPrompt) s.o.log(`prompt:\n${prompt.toString()}\n--- end of prompt`);
  return prompt.tokenize(s.model.tokenizer).length;
}
