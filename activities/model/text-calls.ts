// Tool calls written as text. Many local servers (and small models behind our own model-local
// server) put a call in the message content instead of `tool_calls`: bare JSON, a fenced ```json
// block, <tool_call>...</tool_call> tags, or one call object per line. Such a reply counts only
// when every call in it names a declared function and carries an arguments object; anything else
// stays plain text, which the controller rejects as a proposal.
//
// The one reader of such text: the engine's adapters (reply.ts) and model-local/ both use it, so
// a reply the local server converts is the reply the adapter would have converted. No imports, so
// model-local can load it without the engine's dependencies.

export interface TextCall {
  name: string;
  args: Record<string, unknown>;
}

export interface TextCalls {
  calls: TextCall[];
  /** The text around the calls (the prose beside tagged or fenced blocks); '' when the whole reply was calls. */
  rest: string;
}

const TOOL_CALL_TAGS = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;
const JSON_FENCE = /```(?:json)?\s*([\s\S]*?)```/g;

/** The calls in `content`, or undefined when it is not (entirely) calls to declared functions. */
export function callsFromText(content: string, declared: ReadonlySet<string>): TextCall[] | undefined {
  return textCalls(content, declared)?.calls;
}

/**
 * Tagged blocks are looked at first, then fenced ones, then the whole reply. Within a kind every
 * block must be calls: one good block beside one that is not counts as text, as an array with one
 * undeclared name does.
 */
export function textCalls(content: string, declared: ReadonlySet<string>): TextCalls | undefined {
  for (const pattern of [TOOL_CALL_TAGS, JSON_FENCE]) {
    const blocks = [...content.matchAll(pattern)].map((m) => callsIn(m[1] ?? '', declared));
    if (blocks.length > 0 && blocks.every((b) => b !== undefined)) {
      return { calls: blocks.flat(), rest: content.replace(pattern, '').trim() };
    }
  }
  const whole = callsIn(content, declared);
  return whole ? { calls: whole, rest: '' } : undefined;
}

/** One block: a call object, an array of them, or (two lines or more) one per line. */
function callsIn(block: string, declared: ReadonlySet<string>): TextCall[] | undefined {
  const parsed = parseJson(block.trim());
  if (parsed.ok) return asCalls(parsed.value, declared);
  const lines = block
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length < 2) return undefined;
  const each = lines.map((line) => {
    const one = parseJson(line);
    return one.ok ? asCalls(one.value, declared) : undefined;
  });
  return each.every((c) => c !== undefined) ? each.flat() : undefined;
}

function asCalls(value: unknown, declared: ReadonlySet<string>): TextCall[] | undefined {
  const items = Array.isArray(value) ? value : [value];
  const calls = items.map((item) => asCall(item, declared));
  return calls.length > 0 && calls.every((c) => c !== undefined) ? calls : undefined;
}

function asCall(item: unknown, declared: ReadonlySet<string>): TextCall | undefined {
  if (!isObject(item)) return undefined;
  const fn = isObject(item.function) ? item.function : undefined;
  const name = [item.name, fn?.name, item.tool].find((n): n is string => typeof n === 'string');
  if (!name || !declared.has(name)) return undefined;
  let args: unknown = item.arguments ?? item.parameters ?? item.args ?? fn?.arguments ?? {};
  if (typeof args === 'string') {
    // Some servers write "" for a call without arguments.
    const parsed = args.trim() === '' ? { ok: true as const, value: {} } : parseJson(args);
    if (!parsed.ok) return undefined;
    args = parsed.value;
  }
  return isObject(args) ? { name, args } : undefined;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
