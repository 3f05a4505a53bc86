// Holds the real node-llama-cpp to the types the server is written against (llama-api.ts).
// Compiled only by model-local/tsconfig.json, where node-llama-cpp is installed; the root
// typecheck leaves this file out. Nothing here runs.
import * as real from 'node-llama-cpp';
import type { LlamaContextSequence, LlamaText, NodeLlamaCpp, QwenChatWrapper } from './llama-api.js';

type RealHandles = {
  logLevel: real.LlamaLogLevel;
  sequence: real.LlamaContextSequence;
  wrapper: real.QwenChatWrapper;
  functions: real.ChatModelFunctions;
  text: real.LlamaText;
  special: real.SpecialTokensText;
};

export const conforms: NodeLlamaCpp<RealHandles> = real;
// The handles themselves, as the server reads them.
export const wrapperConforms = (w: real.QwenChatWrapper): QwenChatWrapper<real.ChatModelFunctions> => w;
export const sequenceConforms = (s: real.LlamaContextSequence): LlamaContextSequence => s;
export const textConforms = (t: real.LlamaText): LlamaText => t;
