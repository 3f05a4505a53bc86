// Why this exists: the activity side of the AgentDojo domains. Every tool is AgentDojo's own
// function, run by the bridge in the case's session (the case id is the session id); effects carry
// the engine's idempotency key, which the bridge applies at most once, and are read back by it.
// Only the output's shape is adapted here (a bare list or string becomes an object the contract
// can name), never its content.
import { implement, ToolRefused, type ProbeAnswer, type ToolContext } from '../../worker/public.js';
import { banking } from './banking.js';
import type { BridgeClient } from './client.js';
import { slack } from './slack.js';

export interface AgentDojoDeps {
  bridge: BridgeClient;
}
type Ctx = ToolContext<AgentDojoDeps>;

/** AgentDojo's answer, or a refusal with its error (a missing user, an unknown channel: nothing happened). */
async function run(ctx: Ctx, tool: string, args: unknown): Promise<unknown> {
  const answer = await ctx.deps.bridge.call(ctx.caseId, tool, dropAbsent(args), ctx.idempotencyKey);
  if (!answer.ok) throw new ToolRefused(`${tool}: ${answer.error ?? 'refused'}`, 'agentdojo_error');
  return answer.result;
}

/** Optional arguments left out, as AgentDojo's functions default them. */
function dropAbsent(args: unknown): unknown {
  if (!args || typeof args !== 'object') return args;
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined));
}

async function effect(ctx: Ctx, tool: string, args: unknown) {
  const result = await run(ctx, tool, args);
  const message = result && typeof result === 'object' && 'message' in result ? String(result.message) : `${tool} applied`;
  return { applied: true as const, message: message.slice(0, 500) };
}

const readback = async (key: string, ctx: Ctx) => {
  const found = await ctx.deps.bridge.readback(ctx.caseId, key);
  if (!found.applied) return { applied: false };
  const r = found.result;
  const message = r && typeof r === 'object' && 'message' in r ? String(r.message) : 'applied';
  return { applied: true, output: { applied: true, message: message.slice(0, 500) } };
};

/** AgentDojo judges the run afterwards, on its own; for the engine the world shows what the answer says once it is given. */
const probe = async (): Promise<ProbeAnswer> => ({ holds: true, conflict: false, decided: true, detail: 'AgentDojo judges this run after it ends', facts: {} });

const list = <T>(value: unknown) => (Array.isArray(value) ? (value as T[]) : []);

export const bankingImplementation = implement(banking).with<AgentDojoDeps>({
  tools: {
    get_iban: async (a, ctx) => ({ iban: String(await run(ctx, 'get_iban', a)) }),
    get_balance: async (a, ctx) => ({ balance: Number(await run(ctx, 'get_balance', a)) }),
    get_most_recent_transactions: async (a, ctx) => ({ transactions: list(await run(ctx, 'get_most_recent_transactions', a)) }),
    get_scheduled_transactions: async (a, ctx) => ({ transactions: list(await run(ctx, 'get_scheduled_transactions', a)) }),
    read_file: async (a, ctx) => ({ file_path: a.file_path, content: String((await run(ctx, 'read_file', a)) ?? '') }),
    get_user_info: async (a, ctx) => (await run(ctx, 'get_user_info', a)) as { first_name: string; last_name: string; street: string; city: string },
    send_money: (a, ctx) => effect(ctx, 'send_money', a),
    schedule_transaction: (a, ctx) => effect(ctx, 'schedule_transaction', a),
    update_scheduled_transaction: (a, ctx) => effect(ctx, 'update_scheduled_transaction', a),
    update_password: (a, ctx) => effect(ctx, 'update_password', a),
    update_user_info: (a, ctx) => effect(ctx, 'update_user_info', a),
  },
  readbacks: { applied_by_key: readback },
  probe,
});

type Message = { sender: string; recipient: string; body: string };

export const slackImplementation = implement(slack).with<AgentDojoDeps>({
  tools: {
    get_channels: async (a, ctx) => ({ channels: list<string>(await run(ctx, 'get_channels', a)) }),
    get_users_in_channel: async (a, ctx) => ({ channel: a.channel, users: list<string>(await run(ctx, 'get_users_in_channel', a)) }),
    read_channel_messages: async (a, ctx) => ({ channel: a.channel, messages: list<Message>(await run(ctx, 'read_channel_messages', a)) }),
    read_inbox: async (a, ctx) => ({ user: a.user, messages: list<Message>(await run(ctx, 'read_inbox', a)) }),
    get_webpage: async (a, ctx) => ({ url: a.url, content: String((await run(ctx, 'get_webpage', a)) ?? '') }),
    send_direct_message: (a, ctx) => effect(ctx, 'send_direct_message', a),
    send_channel_message: (a, ctx) => effect(ctx, 'send_channel_message', a),
    add_user_to_channel: (a, ctx) => effect(ctx, 'add_user_to_channel', a),
    invite_user_to_slack: (a, ctx) => effect(ctx, 'invite_user_to_slack', a),
    remove_user_from_slack: (a, ctx) => effect(ctx, 'remove_user_from_slack', a),
    post_webpage: (a, ctx) => effect(ctx, 'post_webpage', a),
  },
  readbacks: { applied_by_key: readback },
  probe,
});

export const agentdojoImplementations = [bankingImplementation, slackImplementation] as const;
