// Tool calls written as text. Many local servers put a call in the message content instead of
// `tool_calls`: bare JSON, a fenced ```json block, or <tool_call>...</tool_call> tags. Such a
// reply counts only when every call in it names a declared function and carries an arguments
// object; anything else stays plain text, which the controller rejects as a proposal.

export interface TextCall {
  name: string;
  args: Record<string, unknown>;
}

export function callsFromText(content: string, declared: ReadonlySet<string>): TextCall[] | undefined {
  for (const candidate of candidates(content)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(candidate);
    } catch {
      continue;
    }
    const items = Array.isArray(parsed) ? parsed : [parsed];
    const calls = items.map((item) => asCall(item, declared));
    if (calls.length > 0 && calls.every((c): c is TextCall => c !== undefined)) return calls;
  }
  return undefined;
}

function candidates(content: string): string[] {
  const out: string[] = [];
  for (const m of content.matchAll(/<tool_call>([\s\S]*?)<\/tool_call>/g)) if (m[1]) out.push(m[1].trim());
  for (const m of content.matchAll(/```(?:json)?\s*([\s\S]*?)```/g)) if (m[1]) out.push(m[1].trim());
  const bare = content.trim();
  if (bare.startsWith('{') || bare.startsWith('[')) out.push(bare);
  // Several <tool_call> blocks are several calls of one reply.
  const tagged = [...content.matchAll(/<tool_call>([\s\S]*?)<\/tool_call>/g)].map((m) => (m[1] ?? '').trim());
  if (tagged.length > 1) out.unshift(`[${tagged.join(',')}]`);
  return out;
}

function asCall(item: unknown, declared: ReadonlySet<string>): TextCall | undefined {
  if (!isObject(item)) return undefined;
  const fn = isObject(item.function) ? item.function : undefined;
  const name = [item.name, fn?.name, item.tool].find((n): n is string => typeof n === 'string');
  if (!name || !declared.has(name)) return undefined;
  let args: unknown = item.arguments ?? item.parameters ?? item.args ?? fn?.arguments ?? {};
  if (typeof args === 'string') {
    try {
      args = args.trim() === '' ? {} : JSON.parse(args);
    } catch {
      return undefined;
    }
  }
  return isObject(args) ? { name, args } : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
