// Why this exists: the activity side of the AgentDojo domains. Every tool is AgentDojo's own
// function, run by the bridge in the case's session (the case id is the session id); effects carry
// the engine's idempotency key, which the bridge applies at most once, and are read back by it.
// Only the output's shape is adapted here (a bare list or string becomes an object the contract
// can name; a workspace effect's answer, the object it made or changed, becomes its id), never its
// content.
import { implement, ToolRefused, type ProbeAnswer, type ToolContext } from '../../worker/public.js';
import { banking } from './banking.js';
import type { BridgeClient } from './client.js';
import { slack } from './slack.js';
import { travel } from './travel.js';
import { workspace } from './workspace.js';
import type { DriveFile, Email } from './workspace-records.js';
import { answerText, type agentdojoClaim, type CalendarEvent } from './shared.js';
import type { z } from '../../workflows/public.js';

type AgentDojoClaim = z.infer<typeof agentdojoClaim>;

export interface AgentDojoDeps {
  bridge: BridgeClient;
  /** Told the answer of every finish the probe is asked about: what AgentDojo's utility() judges. */
  heard?: (caseId: string, answer: string) => void;
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

/** The world's words on an applied effect: its `message`, or the sentence it answered (travel's reservations). */
function messageOf(result: unknown, otherwise: string): string {
  if (typeof result === 'string' && result) return result.slice(0, 500);
  return (result && typeof result === 'object' && 'message' in result ? String(result.message) : otherwise).slice(0, 500);
}

async function effect(ctx: Ctx, tool: string, args: unknown) {
  return { applied: true as const, message: messageOf(await run(ctx, tool, args), `${tool} applied`) };
}

const readback = async (key: string, ctx: Ctx) => {
  const found = await ctx.deps.bridge.readback(ctx.caseId, key);
  if (!found.applied) return { applied: false };
  return { applied: true, output: { applied: true, message: messageOf(found.result, 'applied') } };
};

/**
 * AgentDojo judges the run afterwards, on its own; for the engine the world shows what the answer
 * says once it is given. The answer judged is the claim the engine finished with (a plan's
 * references resolved), never what a model meant to say.
 */
const probe = async (claim: AgentDojoClaim, ctx: Ctx): Promise<ProbeAnswer> => {
  ctx.deps.heard?.(ctx.caseId, answerText(claim));
  return { holds: true, conflict: false, decided: true, detail: 'AgentDojo judges this run after it ends', facts: {} };
};

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

const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const text = (value: unknown) => (typeof value === 'string' ? value : '');
const byName = async (ctx: Ctx, tool: string, a: unknown) => ({ by_name: record(await run(ctx, tool, a)) });
const byNameText = async (ctx: Ctx, tool: string, a: unknown) => ({
  by_name: Object.fromEntries(Object.entries(record(await run(ctx, tool, a))).map(([k, v]) => [k, String(v)])),
});

/** AgentDojo's profile is keyed by labels (`First Name`); the contract names them as the record does. */
const PROFILE = {
  first_name: 'First Name',
  last_name: 'Last Name',
  id_number: 'ID Number',
  email: 'Email',
  phone_number: 'Phone Number',
  address: 'Address',
  passport_number: 'Passport Number',
  bank_account_number: 'Bank Account Number',
  credit_card_number: 'Credit Card Number',
} as const;

export const travelImplementation = implement(travel).with<AgentDojoDeps>({
  tools: {
    get_user_information: async (a, ctx) => {
      const got = record(await run(ctx, 'get_user_information', a));
      return Object.fromEntries(Object.entries(PROFILE).map(([k, label]) => [k, String(got[label] ?? '')])) as Record<keyof typeof PROFILE, string>;
    },
    get_all_hotels_in_city: async (a, ctx) => ({ city: a.city, text: text(await run(ctx, 'get_all_hotels_in_city', a)) }),
    get_hotels_prices: (a, ctx) => byName(ctx, 'get_hotels_prices', a),
    get_rating_reviews_for_hotels: (a, ctx) => byNameText(ctx, 'get_rating_reviews_for_hotels', a),
    get_hotels_address: (a, ctx) => byNameText(ctx, 'get_hotels_address', a),
    get_all_restaurants_in_city: async (a, ctx) => ({ city: a.city, text: text(await run(ctx, 'get_all_restaurants_in_city', a)) }),
    get_cuisine_type_for_restaurants: (a, ctx) => byName(ctx, 'get_cuisine_type_for_restaurants', a),
    get_restaurants_address: (a, ctx) => byName(ctx, 'get_restaurants_address', a),
    get_rating_reviews_for_restaurants: (a, ctx) => byNameText(ctx, 'get_rating_reviews_for_restaurants', a),
    get_dietary_restrictions_for_all_restaurants: (a, ctx) => byName(ctx, 'get_dietary_restrictions_for_all_restaurants', a),
    get_contact_information_for_restaurants: (a, ctx) => byName(ctx, 'get_contact_information_for_restaurants', a),
    get_price_for_restaurants: (a, ctx) => byName(ctx, 'get_price_for_restaurants', a),
    check_restaurant_opening_hours: (a, ctx) => byName(ctx, 'check_restaurant_opening_hours', a),
    get_all_car_rental_companies_in_city: async (a, ctx) => ({ city: a.city, text: text(await run(ctx, 'get_all_car_rental_companies_in_city', a)) }),
    get_car_types_available: (a, ctx) => byName(ctx, 'get_car_types_available', a),
    get_rating_reviews_for_car_rental: (a, ctx) => byNameText(ctx, 'get_rating_reviews_for_car_rental', a),
    get_car_fuel_options: (a, ctx) => byName(ctx, 'get_car_fuel_options', a),
    get_car_rental_address: (a, ctx) => byName(ctx, 'get_car_rental_address', a),
    get_car_price_per_day: (a, ctx) => byName(ctx, 'get_car_price_per_day', a),
    get_flight_information: async (a, ctx) => ({ text: text(await run(ctx, 'get_flight_information', a)) }),
    search_calendar_events: async (a, ctx) => ({ events: list<CalendarEvent>(await run(ctx, 'search_calendar_events', a)) }),
    get_day_calendar_events: async (a, ctx) => ({ events: list<CalendarEvent>(await run(ctx, 'get_day_calendar_events', a)) }),
    create_calendar_event: (a, ctx) => effect(ctx, 'create_calendar_event', a),
    cancel_calendar_event: (a, ctx) => effect(ctx, 'cancel_calendar_event', a),
    reserve_hotel: (a, ctx) => effect(ctx, 'reserve_hotel', a),
    reserve_car_rental: (a, ctx) => effect(ctx, 'reserve_car_rental', a),
    reserve_restaurant: (a, ctx) => effect(ctx, 'reserve_restaurant', a),
    send_email: (a, ctx) => effect(ctx, 'send_email', a),
  },
  readbacks: { applied_by_key: readback },
  probe,
});

/** The id of the e-mail, event or file a workspace effect made or changed (AgentDojo answers the object), if it answered one. */
const idOf = (result: unknown) => {
  const id = record(result).id_;
  return typeof id === 'string' ? { id } : {};
};
const workspaceMessage = (tool: string, result: unknown) => {
  const { id } = idOf(result);
  return messageOf(result, id === undefined ? `${tool} applied` : `${tool} applied: ${id}`);
};
async function workspaceEffect(ctx: Ctx, tool: string, args: unknown) {
  const result = await run(ctx, tool, args);
  return { applied: true as const, message: workspaceMessage(tool, result), ...idOf(result) };
}
const workspaceReadback = async (key: string, ctx: Ctx) => {
  const found = await ctx.deps.bridge.readback(ctx.caseId, key);
  if (!found.applied) return { applied: false };
  return { applied: true, output: { applied: true, message: workspaceMessage('effect', found.result), ...idOf(found.result) } };
};
const emails = async (ctx: Ctx, tool: string, a: unknown) => ({ emails: list<Email>(await run(ctx, tool, a)) });
const events = async (ctx: Ctx, tool: string, a: unknown) => ({ events: list<CalendarEvent>(await run(ctx, tool, a)) });
const files = async (ctx: Ctx, tool: string, a: unknown) => ({ files: list<DriveFile>(await run(ctx, tool, a)) });

export const workspaceImplementation = implement(workspace).with<AgentDojoDeps>({
  tools: {
    get_unread_emails: (a, ctx) => emails(ctx, 'get_unread_emails', a),
    get_sent_emails: (a, ctx) => emails(ctx, 'get_sent_emails', a),
    get_received_emails: (a, ctx) => emails(ctx, 'get_received_emails', a),
    get_draft_emails: (a, ctx) => emails(ctx, 'get_draft_emails', a),
    search_emails: (a, ctx) => emails(ctx, 'search_emails', a),
    search_contacts_by_name: async (a, ctx) => ({ contacts: list<{ email: string; name: string }>(await run(ctx, 'search_contacts_by_name', a)) }),
    search_contacts_by_email: async (a, ctx) => ({ contacts: list<{ email: string; name: string }>(await run(ctx, 'search_contacts_by_email', a)) }),
    get_current_day: async (a, ctx) => ({ day: text(await run(ctx, 'get_current_day', a)) }),
    search_calendar_events: (a, ctx) => events(ctx, 'search_calendar_events', a),
    get_day_calendar_events: (a, ctx) => events(ctx, 'get_day_calendar_events', a),
    list_files: (a, ctx) => files(ctx, 'list_files', a),
    search_files_by_filename: (a, ctx) => files(ctx, 'search_files_by_filename', a),
    search_files: (a, ctx) => files(ctx, 'search_files', a),
    get_file_by_id: async (a, ctx) => ({ files: [(await run(ctx, 'get_file_by_id', a)) as DriveFile] }),
    send_email: (a, ctx) => workspaceEffect(ctx, 'send_email', a),
    delete_email: (a, ctx) => workspaceEffect(ctx, 'delete_email', a),
    create_calendar_event: (a, ctx) => workspaceEffect(ctx, 'create_calendar_event', a),
    cancel_calendar_event: (a, ctx) => workspaceEffect(ctx, 'cancel_calendar_event', a),
    reschedule_calendar_event: (a, ctx) => workspaceEffect(ctx, 'reschedule_calendar_event', a),
    add_calendar_event_participants: (a, ctx) => workspaceEffect(ctx, 'add_calendar_event_participants', a),
    append_to_file: (a, ctx) => workspaceEffect(ctx, 'append_to_file', a),
    create_file: (a, ctx) => workspaceEffect(ctx, 'create_file', a),
    delete_file: (a, ctx) => workspaceEffect(ctx, 'delete_file', a),
    share_file: (a, ctx) => workspaceEffect(ctx, 'share_file', a),
  },
  readbacks: {
    applied_by_key: workspaceReadback,
    // What the unread mail answered when it was read under this key (it is read once: it was marked read).
    unread_by_key: async (key, ctx) => {
      const found = await ctx.deps.bridge.readback(ctx.caseId, key);
      return found.applied ? { applied: true, output: { emails: list<Email>(found.result) } } : { applied: false };
    },
  },
  probe,
});

export const agentdojoImplementations = [bankingImplementation, slackImplementation, travelImplementation, workspaceImplementation] as const;
