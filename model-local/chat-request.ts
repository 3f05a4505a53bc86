// An OpenAI request, turned into what node-llama-cpp generates from: a chat history (calls and
// their results joined up by id) and the offered functions, each with a grammar schema. Pure:
// no model here, so tests can read what the model would be given.
import { gbnfSchema } from './grammar-schema.js';
import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelFunctions } from './llama-api.js';
import { BadRequest, type ChatMessage, type FunctionTool, type ToolChoice } from './wire.js';

function textOf(content: ChatMessage['content']): string {
  if (content == null) return '';
  return typeof content === 'string' ? content : content.map((p) => p.text).join('');
}

/** The chat so far, ending with the model turn to generate. */
export function historyFrom(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  const pendingCalls = new Map<string, ChatModelFunctionCall>(); // tool_call_id -> the call awaiting its result
  for (const m of messages) {
    switch (m.role) {
      case 'system':
      case 'developer':
        history.push({ type: 'system', text: textOf(m.content) });
        break;
      case 'user':
        history.push({ type: 'user', text: textOf(m.content) });
        break;
      case 'assistant': {
        const response: (string | ChatModelFunctionCall)[] = [];
        const text = textOf(m.content);
        if (text) response.push(text);
        (m.tool_calls ?? []).forEach((c, k) => {
          const params = callParams(c.function.arguments);
          const item: ChatModelFunctionCall = { type: 'functionCall', name: c.function.name, params, result: '', startsNewChunk: k === 0 };
          response.push(item);
          if (c.id !== undefined) pendingCalls.set(c.id, item);
        });
        history.push({ type: 'model', response });
        break;
      }
      case 'tool': {
        const result = textOf(m.content);
        const item = m.tool_call_id == null ? undefined : pendingCalls.get(m.tool_call_id);
        if (item && m.tool_call_id != null) {
          item.result = result;
          pendingCalls.delete(m.tool_call_id);
        } else {
          // No call of that id in view: still show the model what came back.
          history.push({ type: 'user', text: `<tool_response>\n${result}\n</tool_response>` });
        }
        break;
      }
    }
  }
  // The reply to generate: an empty model turn (or the continuation of a trailing assistant text).
  const last = history.at(-1);
  if (last?.type === 'model' && last.response.every((r) => typeof r === 'string')) return history;
  history.push({ type: 'model', response: [] });
  return history;
}

function callParams(args: string | null | undefined): unknown {
  if (!args) return {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args; // keep what the model wrote; it renders as a string
  }
}

export interface OfferedFunctions {
  /** For node-llama-cpp; undefined when no function is offered (no tools, or tool_choice "none"). */
  functions: ChatModelFunctions | undefined;
  /** Every tool of the request by name, with the caller's own schema. */
  tools: Map<string, FunctionTool['function']>;
  /** tool_choice "required" or a named function: the reply must open with a call. */
  force: boolean;
  /** The offered tools as the caller wrote them: what the model reads (the grammar gets a reduced schema). */
  documented: FunctionTool[];
}

export function functionsFrom(tools: readonly FunctionTool[] | null | undefined, toolChoice: ToolChoice | null | undefined): OfferedFunctions {
  const byName = new Map((tools ?? []).map((t) => [t.function.name, t] as const));
  const none: OfferedFunctions = { functions: undefined, tools: new Map([...byName].map(([k, t]) => [k, t.function])), force: false, documented: [] };
  let offered = [...byName.keys()];
  let force = false;
  if (toolChoice === 'none') offered = [];
  else if (toolChoice === 'required') force = true;
  else if (toolChoice && typeof toolChoice === 'object') {
    const name = toolChoice.function.name;
    if (!byName.has(name)) throw new BadRequest(`tool_choice names ${JSON.stringify(name)}, which is not among the tools`);
    offered = [name];
    force = true;
  }
  const documented = offered.map((name) => byName.get(name)).filter((t): t is FunctionTool => t !== undefined);
  if (documented.length === 0) return none;
  const functions: Record<string, { description?: string; params?: Record<string, unknown> }> = {};
  for (const { function: fn } of documented) {
    functions[fn.name] = {
      ...(fn.description ? { description: fn.description } : {}),
      ...(fn.parameters && Object.keys(fn.parameters).length ? { params: gbnfSchema(fn.parameters) } : {}),
    };
  }
  return { ...none, functions, force, documented };
}
