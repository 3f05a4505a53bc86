// The part of node-llama-cpp this server uses, as types of our own. node-llama-cpp lives only in
// model-local/node_modules (730 MB, never installed by the root `npm ci`), so the root typecheck
// cannot see its declarations; it checks the server against these instead. llama-api.check.ts
// holds the real package to them (`npm run check --prefix model-local`, also run by smoke.ts), so
// a node-llama-cpp upgrade that changes any of this fails there, not at run time.
//
// Names follow node-llama-cpp's own; each type says only what the server reads or passes.

export interface Tokenizer {
  (text: string, specialTokens?: boolean): readonly unknown[];
}

export type LlamaTextJSONValue = string | { type: 'specialTokensText'; value: string } | { type: 'specialToken'; value: string };
export type LlamaTextJSON = string | LlamaTextJSONValue[];

export interface LlamaText {
  toString(): string;
  toJSON(): LlamaTextJSON;
  tokenize(tokenizer: Tokenizer): readonly unknown[];
}

export type LlamaTextInput<T = LlamaText, S = SpecialTokensText> = string | S | T | readonly LlamaTextInput<T, S>[];

export interface LlamaTextConstructor<T = LlamaText, S = SpecialTokensText> {
  (...values: readonly LlamaTextInput<T, S>[]): T;
  joinValues(separator: T | string, values: readonly LlamaTextInput<T, S>[]): T;
  fromJSON(json: LlamaTextJSON): T;
}

export interface SpecialTokensText {
  readonly value: string;
}

/** JSON Schema as node-llama-cpp's grammar builder reads it; model-local/grammar-schema.ts writes these. */
export type GbnfSchema = Readonly<Record<string, unknown>>;

/** The functions offered to the model; F below is this, or the package's own type in the check. */
export type ChatModelFunctions = Readonly<Record<string, { readonly description?: string; readonly params?: GbnfSchema }>>;

export interface ChatModelFunctionCall {
  type: 'functionCall';
  name: string;
  params: unknown;
  result: unknown;
  startsNewChunk?: boolean;
}

export type ChatHistoryItem =
  { type: 'system'; text: string } | { type: 'user'; text: string } | { type: 'model'; response: (string | ChatModelFunctionCall)[] };

export interface ContextStateOptions<F = ChatModelFunctions> {
  chatHistory: readonly ChatHistoryItem[];
  availableFunctions?: F;
  documentFunctionParams?: boolean;
}

export interface GeneratedContextState {
  contextText: LlamaText;
  stopGenerationTriggers: LlamaText[];
  functionCall?: { initiallyEngaged: boolean; disengageInitiallyEngaged: LlamaText[] };
}

export interface QwenChatWrapper<F = ChatModelFunctions> {
  readonly settings: { readonly functions: { readonly call: { readonly prefix: string | LlamaText } } };
  generateContextState(options: ContextStateOptions<F>): GeneratedContextState;
  generateAvailableFunctionsSystemText(availableFunctions: F, options: { documentParams?: boolean }): LlamaText;
}

export interface QwenChatWrapperOptions {
  variation: '3';
  /** Not in the declared options, read by the wrapper: a tool result string goes in verbatim. */
  _flatFunctionResultString: boolean;
}

export interface GenerateOptions<F = ChatModelFunctions> {
  functions?: F;
  maxParallelFunctionCalls?: number;
  maxTokens: number;
  temperature: number;
  repeatPenalty: false | { penalty: number; frequencyPenalty?: number; presencePenalty?: number };
  topP?: number;
  seed?: number;
  customStopTriggers?: readonly string[];
  signal: AbortSignal;
}

export interface ChatResponse {
  response: string;
  functionCalls?: readonly { functionName: string; params: unknown }[];
  metadata: { stopReason: string };
}

export interface LlamaChat<F = ChatModelFunctions> {
  generateResponse(history: ChatHistoryItem[], options: GenerateOptions<F>): Promise<ChatResponse>;
}

export interface LlamaContextSequence {
  readonly tokenMeter: { readonly usedOutputTokens: number };
}

/**
 * What the package hands out and takes back unchanged. The server sees our own types (the
 * defaults); the check fills in the package's, since its classes are not structural enough for
 * ours to stand in for them (a LlamaChat takes only its own context sequence).
 */
export interface OwnHandles {
  /** node-llama-cpp's `LlamaLogLevel` enum. */
  logLevel: unknown;
  sequence: LlamaContextSequence;
  wrapper: QwenChatWrapper;
  functions: ChatModelFunctions;
  text: LlamaText;
  special: SpecialTokensText;
}

type Handles = Record<keyof OwnHandles, unknown>;

export interface LlamaContext<H extends Handles = OwnHandles> {
  getSequence(): H['sequence'];
}

export interface LlamaModel<H extends Handles = OwnHandles> {
  readonly tokenizer: Tokenizer;
  createContext(options: { contextSize: number; threads: number; sequences: 1 }): Promise<LlamaContext<H>>;
}

export interface Llama<H extends Handles = OwnHandles> {
  loadModel(options: { modelPath: string; gpuLayers: 0 }): Promise<LlamaModel<H>>;
  dispose(): Promise<void>;
}

export interface NodeLlamaCpp<H extends Handles = OwnHandles> {
  readonly getLlama: (options: { gpu: false; build: 'never'; maxThreads: number; logLevel: H['logLevel'] }) => Promise<Llama<H>>;
  readonly LlamaLogLevel: { readonly error: H['logLevel'] };
  readonly LlamaChat: new (options: { contextSequence: H['sequence']; chatWrapper: H['wrapper'] }) => LlamaChat<H['functions']>;
  readonly LlamaText: LlamaTextConstructor<H['text'], H['special']>;
  readonly SpecialTokensText: new (value: string) => H['special'];
  readonly QwenChatWrapper: new (options: QwenChatWrapperOptions) => H['wrapper'];
}

/** node-llama-cpp from model-local/node_modules, seen through the types above. */
export async function loadNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  // A specifier the root typecheck does not resolve (the package is not installed there).
  const specifier: string = 'node-llama-cpp';
  return (await import(specifier)) as NodeLlamaCpp;
}
