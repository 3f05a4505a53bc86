#!/usr/bin/env node
// An OpenAI-compatible /v1/chat/completions over node-llama-cpp, on 127.0.0.1 only, CPU only.
//
//   node model-local/server.mjs [--small] [--port 8088] [--threads 1] [--model FILE]
//
// Requests run one at a time. Tools are rendered in Qwen2.5's own template (a "# Tools" block
// with <tools> signatures in the system turn; calls as <tool_call>{"name", "arguments"}</tool_call>;
// results as <tool_response> in a user turn), and the model's calls are decoded under a grammar
// built from each function's JSON schema, then returned as OpenAI `tool_calls`. With
// tool_choice "required" (or a named function) the reply is forced to start with a call.
import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const HERE = dirname(fileURLToPath(import.meta.url));
const log = (msg) => process.stderr.write(`[model-local] ${msg}\n`);

if (!existsSync(join(HERE, 'node_modules', 'node-llama-cpp'))) {
  log('node-llama-cpp is not installed in model-local/: run `npm run model:local` (or `npm ci --prefix model-local`) first.');
  process.exit(1);
}
const { getLlama, LlamaChat, LlamaLogLevel, LlamaText, QwenChatWrapper, SpecialTokensText } = await import('node-llama-cpp');
const { MODELS_DIR, variantFromArgs } = await import('./fetch-model.mjs');

const { values: args } = parseArgs({
  options: {
    small: { type: 'boolean', default: false },
    port: { type: 'string' },
    threads: { type: 'string' },
    model: { type: 'string' },
    'context-size': { type: 'string' },
  },
  strict: true,
});

const variant = variantFromArgs(args.small ? ['--small'] : []);
const modelFile = args.model ?? (process.env.MODEL_FILE?.trim() || join(MODELS_DIR, variant.file));
const modelId = process.env.MODEL_ID?.trim() || (modelFile === join(MODELS_DIR, variant.file) ? variant.id : basenameNoExt(modelFile));
const port = intOption('port', args.port ?? process.env.MODEL_PORT, 8088, 0, 65535);
const threads = intOption('threads', args.threads ?? process.env.MODEL_THREADS, 1, 1, 64);
const contextSize = intOption('context-size', args['context-size'] ?? process.env.MODEL_CONTEXT, 8192, 512, 131072);
// Calls per reply. 1 by default: past its first call, a small model tends to be drawn into more
// (the separator between calls is a newline) and repeats or adds calls it did not mean.
const maxCalls = intOption('max-calls', process.env.MODEL_MAX_CALLS, 1, 1, 64);
const MAX_BODY = 8 << 20;

function intOption(name, raw, fallback, min, max) {
  if (raw === undefined || String(raw).trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    log(`--${name} must be an integer in [${min}, ${max}], got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return n;
}

function basenameNoExt(p) {
  return p.split('/').pop().replace(/\.gguf$/i, '');
}

if (!existsSync(modelFile)) {
  log(`no model at ${modelFile}: run \`node model-local/verify.mjs${args.small ? ' --small' : ''}\` first (npm run model:local does both).`);
  process.exit(1);
}

// ------------------------------------------------------------------ the model

/**
 * Qwen2.5's template, as QwenChatWrapper renders it, with two changes:
 * - a user turn right after tool results does not get an empty assistant turn in between
 *   (the wrapper opens one after every tool result section; Qwen's own template does not);
 * - when `forceCall` is set and the reply is about to start, function calling is engaged from
 *   the first token: LlamaChat then opens the reply with the call prefix (<tool_call>\n{"name": ")
 *   itself and the model can only write calls.
 */
class QwenToolsChatWrapper extends QwenChatWrapper {
  forceCall = false;
  /** The offered tools as the caller wrote them: what the model reads (the grammar gets a reduced schema). */
  documentedTools = [];

  constructor() {
    // Tool messages carry text (usually JSON): insert it verbatim, as Qwen's template does.
    super({ variation: '3', _flatFunctionResultString: true });
  }

  generateContextState(options) {
    const state = super.generateContextState(options);
    const contextText = dropEmptyAssistantTurns(state.contextText);
    const last = options.chatHistory.at(-1);
    const replyNotStarted = last?.type === 'model' && last.response.every((r) => r === '');
    const hasFunctions = Object.keys(options.availableFunctions ?? {}).length > 0;
    if (this.forceCall && hasFunctions && replyNotStarted) {
      return {
        contextText,
        stopGenerationTriggers: state.stopGenerationTriggers,
        functionCall: { initiallyEngaged: true, disengageInitiallyEngaged: [] },
      };
    }
    return { ...state, contextText };
  }

  /** Qwen2.5's tools block, each tool as its template's `tool | tojson` writes it. */
  generateAvailableFunctionsSystemText(availableFunctions, options) {
    if (this.documentedTools.length === 0) return super.generateAvailableFunctionsSystemText(availableFunctions, options);
    return LlamaText.joinValues('\n', [
      '# Tools',
      '',
      'You may call one or more functions to assist with the user query.',
      '',
      LlamaText('You are provided with function signatures within ', new SpecialTokensText('<tools></tools>'), ' XML tags:'),
      LlamaText(new SpecialTokensText('<tools>')),
      ...this.documentedTools.map((t) => pyJson(t)),
      LlamaText(new SpecialTokensText('</tools>')),
      '',
      LlamaText('For each function call, return a json object with function name and arguments within ', new SpecialTokensText('<tool_call></tool_call>'), ' XML tags:'),
      LlamaText(new SpecialTokensText('<tool_call>')),
      '{"name": <function-name>, "arguments": <args-json-object>}',
      LlamaText(new SpecialTokensText('</tool_call>')),
    ]);
  }
}

/** JSON as Python's json.dumps (Jinja's tojson) writes it: ", " and ": " separators. */
function pyJson(value) {
  if (Array.isArray(value)) return `[${value.map(pyJson).join(', ')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pyJson(v)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const EMPTY_ASSISTANT_TURN = '<|im_start|>assistant\n<|im_end|>\n';

function dropEmptyAssistantTurns(text) {
  // Special-token runs are kept as SpecialTokensText values; the empty turn lies within one.
  const json = text.toJSON();
  const values = Array.isArray(json) ? json : [json];
  let changed = false;
  const out = values.map((v) => {
    if (v && typeof v === 'object' && v.type === 'specialTokensText' && v.value.includes(EMPTY_ASSISTANT_TURN)) {
      changed = true;
      return { ...v, value: v.value.replaceAll(EMPTY_ASSISTANT_TURN, '') };
    }
    return v;
  });
  return changed ? LlamaText.fromJSON(out) : text;
}

log(`loading ${modelFile} (gpuLayers 0, threads ${threads}, context ${contextSize}) ...`);
const loadStarted = Date.now();
const llama = await getLlama({ gpu: false, build: 'never', maxThreads: threads, logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: modelFile, gpuLayers: 0 });
const context = await model.createContext({ contextSize, threads, sequences: 1 });
const sequence = context.getSequence();
const chatWrapper = new QwenToolsChatWrapper();
const chat = new LlamaChat({ contextSequence: sequence, chatWrapper });
log(`loaded in ${((Date.now() - loadStarted) / 1000).toFixed(1)} s`);

// ------------------------------------------------------------------ OpenAI request -> chat history

class BadRequest extends Error {}

function textOf(content, where) {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (part?.type === 'text' && typeof part.text === 'string') return part.text;
        throw new BadRequest(`${where}: only text content parts are supported`);
      })
      .join('');
  }
  throw new BadRequest(`${where}: content must be a string or an array of text parts`);
}

function historyFrom(messages) {
  if (!Array.isArray(messages) || messages.length === 0) throw new BadRequest('messages must be a non-empty array');
  const history = [];
  const pendingCalls = new Map(); // tool_call_id -> the functionCall item awaiting its result
  messages.forEach((m, i) => {
    const where = `messages[${i}]`;
    if (!m || typeof m !== 'object') throw new BadRequest(`${where} must be an object`);
    switch (m.role) {
      case 'system':
      case 'developer':
        history.push({ type: 'system', text: textOf(m.content, where) });
        break;
      case 'user':
        history.push({ type: 'user', text: textOf(m.content, where) });
        break;
      case 'assistant': {
        const response = [];
        const text = textOf(m.content, where);
        if (text) response.push(text);
        const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
        calls.forEach((c, k) => {
          if (c?.type !== 'function' || typeof c.function?.name !== 'string') throw new BadRequest(`${where}.tool_calls[${k}] must be a function call`);
          let params;
          try {
            params = c.function.arguments ? JSON.parse(c.function.arguments) : {};
          } catch {
            params = c.function.arguments; // keep what the model wrote; it renders as a string
          }
          const item = { type: 'functionCall', name: c.function.name, params, result: '', startsNewChunk: k === 0 };
          response.push(item);
          if (typeof c.id === 'string') pendingCalls.set(c.id, item);
        });
        history.push({ type: 'model', response });
        break;
      }
      case 'tool': {
        const result = textOf(m.content, where);
        const item = pendingCalls.get(m.tool_call_id);
        if (item) {
          item.result = result;
          pendingCalls.delete(m.tool_call_id);
        } else {
          // No call of that id in view: still show the model what came back.
          history.push({ type: 'user', text: `<tool_response>\n${result}\n</tool_response>` });
        }
        break;
      }
      default:
        throw new BadRequest(`${where}: unsupported role ${JSON.stringify(m.role)}`);
    }
  });
  // The reply to generate: an empty model turn (or the continuation of a trailing assistant text).
  const last = history.at(-1);
  if (last?.type === 'model' && last.response.every((r) => typeof r === 'string')) return history;
  history.push({ type: 'model', response: [] });
  return history;
}

/** OpenAI tools -> node-llama-cpp functions, whose params must be its JSON-schema subset. */
function functionsFrom(tools, toolChoice) {
  if (tools == null) return { functions: undefined, specs: new Map(), force: false, documented: [] };
  if (!Array.isArray(tools)) throw new BadRequest('tools must be an array');
  const specs = new Map();
  for (const [i, t] of tools.entries()) {
    if (t?.type !== 'function' || typeof t.function?.name !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(t.function.name)) {
      throw new BadRequest(`tools[${i}] must be {type: "function", function: {name, description?, parameters?}} with a name of [A-Za-z0-9_.-]`);
    }
    specs.set(t.function.name, { description: t.function.description, parameters: t.function.parameters, tool: t });
  }
  let offered = [...specs.keys()];
  let force = false;
  if (toolChoice === 'none') offered = [];
  else if (toolChoice === 'required') force = true;
  else if (toolChoice && typeof toolChoice === 'object') {
    const name = toolChoice.function?.name;
    if (!specs.has(name)) throw new BadRequest(`tool_choice names ${JSON.stringify(name)}, which is not among the tools`);
    offered = [name];
    force = true;
  } else if (toolChoice !== undefined && toolChoice !== 'auto') {
    throw new BadRequest('tool_choice must be "none", "auto", "required" or {type: "function", function: {name}}');
  }
  if (offered.length === 0) return { functions: undefined, specs, force: false, documented: [] };
  const functions = {};
  for (const name of offered) {
    const { description, parameters } = specs.get(name);
    functions[name] = {
      ...(typeof description === 'string' && description ? { description } : {}),
      ...(parameters && Object.keys(parameters).length ? { params: gbnfSchema(parameters, parameters) } : {}),
    };
  }
  return { functions, specs, force, documented: offered.map((name) => specs.get(name).tool) };
}

/** Integer ranges up to this wide are enumerated in the grammar. */
const SMALL_RANGE = 200;

const ANY_JSON = { oneOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'object', additionalProperties: true }, { type: 'array' }] };

/**
 * JSON Schema -> the subset node-llama-cpp turns into a grammar: anyOf becomes oneOf, a type
 * list with object/array splits into branches, `{}` becomes any JSON, optional properties become
 * nullable (its grammar writes every listed property; nulls for optional ones are dropped from
 * the reply again), and keywords it cannot enforce are left out (the caller validates anyway).
 */
function gbnfSchema(node, root) {
  if (node === true || node == null) return ANY_JSON;
  if (node === false || typeof node !== 'object') return { type: 'null' };
  const description = typeof node.description === 'string' ? { description: node.description } : {};
  if (typeof node.$ref === 'string') {
    const m = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(node.$ref);
    const defs = root.$defs ?? root.definitions;
    if (!m || !defs?.[m[1]]) return ANY_JSON;
    return gbnfSchema(defs[m[1]], root); // inlined; recursive schemas are cut off by the depth below
  }
  if ('const' in node) return { const: node.const, ...description };
  if (Array.isArray(node.enum)) return { enum: node.enum, ...description };
  const branches = node.anyOf ?? node.oneOf;
  if (Array.isArray(branches)) return { oneOf: branches.map((b) => gbnfSchema(b, root)), ...description };
  if (Array.isArray(node.allOf) && node.allOf.length === 1) return gbnfSchema(node.allOf[0], root);
  const types = Array.isArray(node.type) ? node.type : node.type ? [node.type] : inferTypes(node);
  if (types.length === 0) return ANY_JSON;
  if (types.length > 1) {
    const basic = types.filter((t) => ['string', 'number', 'integer', 'boolean', 'null'].includes(t));
    const complex = types.filter((t) => t === 'object' || t === 'array').map((t) => gbnfSchema({ ...node, type: t }, root));
    const alternatives = [...(basic.length ? [{ type: basic }] : []), ...complex];
    return alternatives.length === 1 ? alternatives[0] : { oneOf: alternatives, ...description };
  }
  const [type] = types;
  if (type === 'object') {
    if (!node.properties || typeof node.properties !== 'object') {
      const extra = node.additionalProperties;
      return { type: 'object', additionalProperties: extra === false ? false : extra && typeof extra === 'object' ? gbnfSchema(extra, root) : true, ...description };
    }
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    const properties = {};
    for (const [key, sub] of Object.entries(node.properties)) {
      const converted = gbnfSchema(sub, root);
      properties[key] = required.has(key) || acceptsNull(converted) ? converted : { oneOf: [converted, { type: 'null' }], ...(converted.description ? { description: converted.description } : {}) };
    }
    return { type: 'object', properties, required: Object.keys(properties), ...description };
  }
  if (type === 'array') {
    return {
      type: 'array',
      ...(node.items && typeof node.items === 'object' && !Array.isArray(node.items) ? { items: gbnfSchema(node.items, root) } : {}),
      ...(Number.isInteger(node.minItems) ? { minItems: node.minItems } : {}),
      ...(Number.isInteger(node.maxItems) ? { maxItems: node.maxItems } : {}),
      ...description,
    };
  }
  if (type === 'string') {
    if (['date-time', 'date', 'time'].includes(node.format)) return { type: 'string', format: node.format, ...description };
    return {
      type: 'string',
      ...(Number.isInteger(node.minLength) ? { minLength: node.minLength } : {}),
      ...(Number.isInteger(node.maxLength) ? { maxLength: node.maxLength } : {}),
      ...description,
    };
  }
  if (type === 'integer' && Number.isInteger(node.minimum) && Number.isInteger(node.maximum) && node.maximum - node.minimum <= SMALL_RANGE) {
    // The grammar's integer has no bounds, and a small model under it tends to write digits
    // until something stops it (a `limit` of 1000000000000000, refused every time): a small
    // range is spelled out instead.
    return { enum: Array.from({ length: node.maximum - node.minimum + 1 }, (_, i) => node.minimum + i), ...description };
  }
  if (['number', 'integer', 'boolean', 'null'].includes(type)) return { type, ...description };
  return ANY_JSON;
}

function inferTypes(node) {
  if (node.properties || node.additionalProperties !== undefined) return ['object'];
  if (node.items) return ['array'];
  return [];
}

function acceptsNull(s) {
  if (!s || typeof s !== 'object') return false;
  if (s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null'))) return true;
  if (s.const === null || (Array.isArray(s.enum) && s.enum.includes(null))) return true;
  return Array.isArray(s.oneOf) && s.oneOf.some(acceptsNull);
}

/** Drops the nulls written for optional properties (see gbnfSchema), following the caller's schema. */
function dropOptionalNulls(value, schema, root, depth = 0) {
  if (!schema || typeof schema !== 'object' || depth > 64) return value;
  if (typeof schema.$ref === 'string') {
    const m = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(schema.$ref);
    const def = m ? (root.$defs ?? root.definitions)?.[m[1]] : undefined;
    return def ? dropOptionalNulls(value, def, root, depth + 1) : value;
  }
  if (Array.isArray(value)) return schema.items ? value.map((v) => dropOptionalNulls(v, schema.items, root, depth + 1)) : value;
  if (!value || typeof value !== 'object' || !schema.properties) return value;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k, v]) => !(v === null && !required.has(k) && !acceptsNull(gbnfSchema(schema.properties[k], root))))
      .map(([k, v]) => [k, dropOptionalNulls(v, schema.properties[k], root, depth + 1)]),
  );
}

// ------------------------------------------------------------------ one completion

const TOOL_CALL_TAGS = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;
const JSON_FENCE = /```(?:json)?\s*([\s\S]*?)```/g;

/**
 * Calls the model wrote as text instead of in the call syntax (Qwen2.5-Coder often answers with
 * bare `{"name": ..., "arguments": ...}`): <tool_call> blocks, ```json fences, or the whole reply
 * as one call object, an array of them, or one per line. Only names among the offered tools count;
 * anything else leaves the text as it is.
 */
function callsInText(text, offered) {
  const asCalls = (value) => {
    const list = Array.isArray(value) ? value : [value];
    const calls = list.map((v) => {
      const name = v?.name ?? v?.function?.name;
      let args = v?.arguments ?? v?.parameters ?? v?.function?.arguments ?? {};
      if (typeof args === 'string') {
        try {
          args = JSON.parse(args);
        } catch {
          return undefined;
        }
      }
      return typeof name === 'string' && offered.has(name) && args && typeof args === 'object' && !Array.isArray(args) ? { functionName: name, params: args } : undefined;
    });
    return list.length > 0 && calls.every(Boolean) ? calls : undefined;
  };
  const parse = (s) => {
    try {
      return asCalls(JSON.parse(s.trim()));
    } catch {
      const lines = s.split('\n').map((l) => l.trim()).filter(Boolean);
      if (lines.length < 2) return undefined;
      const each = lines.map((l) => parse(l));
      return each.every(Boolean) ? each.flat() : undefined;
    }
  };
  for (const pattern of [TOOL_CALL_TAGS, JSON_FENCE]) {
    const blocks = [...text.matchAll(pattern)].map((m) => parse(m[1]));
    if (blocks.length && blocks.every(Boolean)) return { calls: blocks.flat(), rest: text.replace(pattern, '').trim() };
  }
  const whole = parse(text);
  return whole ? { calls: whole, rest: '' } : undefined;
}

function penalties(body) {
  const frequencyPenalty = typeof body.frequency_penalty === 'number' && body.frequency_penalty > 0 ? body.frequency_penalty : undefined;
  const presencePenalty = typeof body.presence_penalty === 'number' && body.presence_penalty > 0 ? body.presence_penalty : undefined;
  if (frequencyPenalty === undefined && presencePenalty === undefined) return false;
  return { penalty: 1, ...(frequencyPenalty ? { frequencyPenalty } : {}), ...(presencePenalty ? { presencePenalty } : {}) };
}

function callId() {
  return `call_${randomBytes(9).toString('base64url')}`;
}

async function complete(body, signal) {
  if (body.stream) throw new BadRequest('stream: true is not supported by this server');
  if (body.n !== undefined && body.n !== 1) throw new BadRequest('only n = 1 is supported');
  const history = historyFrom(body.messages);
  const { functions, specs, force, documented } = functionsFrom(body.tools, body.tool_choice);
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens !== undefined && maxTokens !== null && !(Number.isInteger(maxTokens) && maxTokens > 0)) throw new BadRequest('max_tokens must be a positive integer');
  const temperature = typeof body.temperature === 'number' ? body.temperature : 0;
  const stop = body.stop == null ? [] : Array.isArray(body.stop) ? body.stop : [body.stop];

  chatWrapper.forceCall = force;
  chatWrapper.documentedTools = documented;
  const promptTokens = countPromptTokens(history, functions);
  if (promptTokens >= contextSize) throw new BadRequest(`the prompt is ${promptTokens} tokens; this server's context is ${contextSize} (MODEL_CONTEXT)`);
  const outputBefore = sequence.tokenMeter.usedOutputTokens;
  const started = Date.now();
  const result = await chat.generateResponse(history, {
    ...(functions ? { functions, maxParallelFunctionCalls: body.parallel_tool_calls === false ? 1 : maxCalls } : {}),
    maxTokens: maxTokens ?? Math.max(16, contextSize - promptTokens),
    temperature,
    // No repeat penalty unless asked: calls must copy ids and names from the context verbatim.
    repeatPenalty: penalties(body),
    ...(typeof body.top_p === 'number' ? { topP: body.top_p } : {}),
    ...(Number.isInteger(body.seed) ? { seed: body.seed } : {}),
    ...(stop.length ? { customStopTriggers: stop.filter((s) => typeof s === 'string' && s) } : {}),
    signal,
  });
  const completionTokens = sequence.tokenMeter.usedOutputTokens - outputBefore;

  let text = result.response;
  let calls = result.functionCalls ?? [];
  let fromText = false;
  if (calls.length === 0 && functions) {
    const written = callsInText(text, new Set(Object.keys(functions)));
    if (written) {
      calls = written.calls;
      text = written.rest;
      fromText = true;
    }
  }
  // Small models sometimes repeat the very same call until the limit: one of each is kept.
  const seen = new Set();
  const toolCalls = [];
  for (const c of calls) {
    const parameters = specs.get(c.functionName)?.parameters;
    const args = JSON.stringify(dropOptionalNulls(c.params ?? {}, parameters, parameters ?? {}));
    const key = `${c.functionName}\u0000${args}`;
    if (seen.has(key)) continue;
    seen.add(key);
    toolCalls.push({ id: callId(), type: 'function', function: { name: c.functionName, arguments: args } });
  }
  const dropped = calls.length - toolCalls.length;
  const stopReason = result.metadata.stopReason;
  const finishReason = stopReason === 'maxTokens' ? 'length' : toolCalls.length ? 'tool_calls' : 'stop';
  const ms = Date.now() - started;
  log(
    `${finishReason}: ${promptTokens} prompt tokens, ${completionTokens} generated, ${(ms / 1000).toFixed(1)} s` +
      (toolCalls.length ? `; calls ${toolCalls.map((c) => c.function.name).join(', ')}${fromText ? ' (read from its text)' : ''}` : '') +
      (dropped ? `; dropped ${dropped} repeated call(s)` : ''),
  );
  return {
    id: `chatcmpl-${randomBytes(12).toString('base64url')}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: modelId,
    system_fingerprint: `node-llama-cpp-${variant.id}`,
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

function countPromptTokens(history, functions) {
  const state = chatWrapper.generateContextState({ chatHistory: history, availableFunctions: functions, documentFunctionParams: true });
  // A forced call's prefix is part of what the model reads before its first token.
  const prompt = state.functionCall?.initiallyEngaged ? LlamaText([state.contextText, chatWrapper.settings.functions.call.prefix]) : state.contextText;
  if (process.env.MODEL_DEBUG_PROMPT === '1') log(`prompt:\n${prompt.toString()}\n--- end of prompt`);
  return prompt.tokenize(model.tokenizer).length;
}

// ------------------------------------------------------------------ HTTP

let queue = Promise.resolve();
/** One request at a time: the model has one context sequence and one thread budget. */
function serialized(fn) {
  const run = queue.then(fn, fn);
  queue = run.catch(() => {});
  return run;
}

function send(res, status, body) {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function error(res, status, message, type = 'invalid_request_error') {
  send(res, status, { error: { message, type, param: null, code: null } });
}

async function readJson(req) {
  let size = 0;
  const chunks = [];
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY) throw new BadRequest(`request body over ${MAX_BODY} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BadRequest('request body is not JSON');
  }
}

const server = createServer(async (req, res) => {
  const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/\/+$/, '');
  try {
    if (req.method === 'GET' && (path === '/health' || path === '/v1/health')) return send(res, 200, { status: 'ok', model: modelId });
    if (req.method === 'GET' && path === '/v1/models') {
      return send(res, 200, { object: 'list', data: [{ id: modelId, object: 'model', created: 0, owned_by: 'model-local' }] });
    }
    if (path === '/v1/chat/completions') {
      if (req.method !== 'POST') return error(res, 405, 'use POST');
      const body = await readJson(req);
      if (!body || typeof body !== 'object') throw new BadRequest('request body must be a JSON object');
      // A client that gives up (timeout, cancellation) stops its generation and frees the queue.
      const abort = new globalThis.AbortController();
      res.on('close', () => {
        if (!res.writableFinished) abort.abort(new Error('client closed the connection'));
      });
      const reply = await serialized(() => {
        if (abort.signal.aborted) throw abort.signal.reason;
        return complete(body, abort.signal);
      });
      return send(res, 200, reply);
    }
    return error(res, 404, `no route ${req.method} ${path}`, 'not_found_error');
  } catch (err) {
    if (err instanceof BadRequest) return error(res, 400, err.message);
    if (res.destroyed) return log(`request dropped: ${err?.message ?? err}`);
    log(`error: ${err?.stack ?? err}`);
    return error(res, 500, String(err?.message ?? err), 'server_error');
  }
});

server.requestTimeout = 0; // generations on one CPU thread can take minutes
server.headersTimeout = 60_000;
server.listen(port, '127.0.0.1', () => {
  const { port: bound } = server.address();
  process.stdout.write(`MODEL_READY http://127.0.0.1:${bound}/v1\n`);
});

const shutdown = async () => {
  server.close();
  await llama.dispose().catch(() => {});
  process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
