// Qwen2.5's chat template, as node-llama-cpp's QwenChatWrapper renders it, with the changes that
// make it Qwen's own template for tool use. The class extends the package's, so it is built from
// the loaded module (node-llama-cpp is imported at run time only; see llama-api.ts).
import type { ChatModelFunctions, ContextStateOptions, GeneratedContextState, LlamaText, NodeLlamaCpp, QwenChatWrapper } from './llama-api.js';
import type { FunctionTool } from './wire.js';

export interface QwenToolsChatWrapper extends QwenChatWrapper {
  /** Set per request: the reply must open with a call (tool_choice "required" or a named function). */
  forceCall: boolean;
  /** Set per request: the offered tools as the caller wrote them, which the model reads. */
  documentedTools: readonly FunctionTool[];
}

const EMPTY_ASSISTANT_TURN = '<|im_start|>assistant\n<|im_end|>\n';

/**
 * Two changes to the package's wrapper:
 * - a user turn right after tool results does not get an empty assistant turn in between
 *   (the wrapper opens one after every tool result section; Qwen's own template does not);
 * - when `forceCall` is set and the reply is about to start, function calling is engaged from
 *   the first token: LlamaChat then opens the reply with the call prefix (<tool_call>\n{"name": ")
 *   itself and the model can only write calls.
 * And the tools block is Qwen2.5's, each tool as its template's `tool | tojson` writes it.
 */
export function qwenToolsChatWrapper(lib: NodeLlamaCpp): QwenToolsChatWrapper {
  const { LlamaText: Text, SpecialTokensText: Special } = lib;

  function dropEmptyAssistantTurns(text: LlamaText): LlamaText {
    // Special-token runs are kept as SpecialTokensText values; the empty turn lies within one.
    const json = text.toJSON();
    const values = Array.isArray(json) ? json : [json];
    let changed = false;
    const out = values.map((v) => {
      if (typeof v === 'object' && v.type === 'specialTokensText' && v.value.includes(EMPTY_ASSISTANT_TURN)) {
        changed = true;
        return { ...v, value: v.value.replaceAll(EMPTY_ASSISTANT_TURN, '') };
      }
      return v;
    });
    return changed ? Text.fromJSON(out) : text;
  }

  class Wrapper extends lib.QwenChatWrapper implements QwenToolsChatWrapper {
    forceCall = false;
    documentedTools: readonly FunctionTool[] = [];

    constructor() {
      // Tool messages carry text (usually JSON): insert it verbatim, as Qwen's template does.
      super({ variation: '3', _flatFunctionResultString: true });
    }

    override generateContextState(options: ContextStateOptions): GeneratedContextState {
      const state = super.generateContextState(options);
      const contextText = dropEmptyAssistantTurns(state.contextText);
      const last = options.chatHistory.at(-1);
      const replyNotStarted = last?.type === 'model' && last.response.every((r) => r === '');
      const hasFunctions = Object.keys(options.availableFunctions ?? {}).length > 0;
      if (this.forceCall && hasFunctions && replyNotStarted) {
        return { contextText, stopGenerationTriggers: state.stopGenerationTriggers, functionCall: { initiallyEngaged: true, disengageInitiallyEngaged: [] } };
      }
      return { ...state, contextText };
    }

    override generateAvailableFunctionsSystemText(availableFunctions: ChatModelFunctions, options: { documentParams?: boolean }): LlamaText {
      if (this.documentedTools.length === 0) return super.generateAvailableFunctionsSystemText(availableFunctions, options);
      return Text.joinValues('\n', [
        '# Tools',
        '',
        'You may call one or more functions to assist with the user query.',
        '',
        Text('You are provided with function signatures within ', new Special('<tools></tools>'), ' XML tags:'),
        Text(new Special('<tools>')),
        ...this.documentedTools.map((t) => pyJson(t)),
        Text(new Special('</tools>')),
        '',
        Text('For each function call, return a json object with function name and arguments within ', new Special('<tool_call></tool_call>'), ' XML tags:'),
        Text(new Special('<tool_call>')),
        '{"name": <function-name>, "arguments": <args-json-object>}',
        Text(new Special('</tool_call>')),
      ]);
    }
  }
  return new Wrapper();
}

/** JSON as Python's json.dumps (Jinja's tojson) writes it: ", " and ": " separators. */
export function pyJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pyJson).join(', ')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pyJson(v)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
