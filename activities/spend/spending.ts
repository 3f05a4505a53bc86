// The model activity with money around it: before a call, a team whose day is spent gets a
// refusal instead of a call; after it, the call is priced from the worker's price table, the
// team's day is charged, and the cost goes back to the workflow, which charges the run's own
// spend budget the way it charges tokens (workflows/controller/budget.ts). Pricing lives here,
// not in the workflow, so the table can change without touching recorded histories.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { ProposeInput, ProposeOutput } from '../model/index.js';
import type { ModelConfig } from '../../workflows/run-input.js';
import { openSqliteLedger, spendDay, type SpendLedger } from './ledger.js';
import { costMicros, DEFAULT_PRICES, parsePriceTable, type ModelUsage, type PriceTable } from './prices.js';

/** The team a run without one is charged to, when the worker has daily caps. */
export const DEFAULT_TEAM = 'default';

/** Where the teams the caps do not name are charged, together (no team is named `*`: RunInput.team). */
const UNNAMED_TEAMS = '*';

/** Prices and team caps for model calls (agentSpendPlugin): without them calls are not priced. */
export interface SpendOptions {
  /** Default: DEFAULT_PRICES. */
  prices?: PriceTable;
  /**
   * The price table's id for a run's model. Default: the `openai` adapter's model (or
   * `defaultModel`), a custom adapter's name, `scripted` and `rules` as themselves.
   */
  modelIdOf?: (model: ModelConfig) => string | undefined;
  /** The model the `openai` adapter uses when a run names none (the worker's OPENAI_MODEL). */
  defaultModel?: string;
  /** Micros each team may spend per UTC day; `*` is the cap of any team not named. */
  dailyCaps?: Record<string, number>;
  /** Where the teams' spend is held; required with dailyCaps. */
  ledger?: SpendLedger;
  /** The clock the day is read from (tests). */
  now?: () => number;
}

/** What the workflow gets back: the adapter's reply, and the cost or the refusal. */
export interface SpendOutput extends ProposeOutput {
  /** What the call cost by the price table; absent when the model has no price there. */
  costMicros?: number;
  /** Set instead of a call when a cap held outside the run is spent. */
  spendRefused?: { cap: string; detail: string };
}

const DailyCaps = z.record(z.string().min(1).max(64), z.number().int().min(0));
const Usage = z.looseObject({ inputTokens: z.number().min(0).optional(), outputTokens: z.number().min(0).optional() });

/** Wraps a propose activity (modelActivities(...).propose) with pricing and the teams' daily caps. */
export function withSpend(propose: (input: ProposeInput) => Promise<ProposeOutput>, options: SpendOptions = {}): (input: ProposeInput) => Promise<SpendOutput> {
  const prices = options.prices ?? DEFAULT_PRICES;
  const caps = options.dailyCaps ? DailyCaps.parse(options.dailyCaps) : undefined;
  if (caps && Object.keys(caps).length > 0 && !options.ledger) throw new Error("daily spend caps need a ledger (openSqliteLedger) to hold the teams' spend");
  const modelIdOf = options.modelIdOf ?? ((m: ModelConfig) => defaultModelId(m, options.defaultModel));
  const now = options.now ?? Date.now;

  return async (input) => {
    const modelId = modelIdOf(input.model);
    const price = modelId !== undefined && Object.hasOwn(prices.models, modelId) ? prices.models[modelId] : undefined;
    const team = input.team ?? DEFAULT_TEAM;
    const named = caps !== undefined && Object.hasOwn(caps, team);
    const cap = caps ? (named ? caps[team] : caps['*']) : undefined;
    // The team is the starter's word: every team the caps do not name shares the one day of `*`,
    // so a name made up for each run is no fresh cap.
    const account = named ? team : UNNAMED_TEAMS;
    const ledger = options.ledger;
    const day = spendDay(now());
    if (cap !== undefined && ledger) {
      const capName = named ? `team ${team} daily cap` : `daily cap of the teams the caps do not name (*), charged by team ${team}`;
      if (!price) return refusal(capName, `no price for model ${modelId ?? input.model.adapter} in the price table, so the cap cannot be kept`);
      const spent = await ledger.spent(account, day);
      if (spent >= cap) return refusal(capName, `${money(spent, prices)} of ${money(cap, prices)} spent on ${day}`);
    }
    const output = await propose(input);
    if (!price) return output;
    // `tokens` and `usage` are already the charged numbers: a side the provider under-reported was
    // floored at the engine's estimate (activities/model/usage-floor.ts), so a proxy that reports
    // 0 is priced, and counts against the team's cap, like any other call.
    const usage = Usage.safeParse((output as { usage?: unknown }).usage);
    const cost = costMicros(price, usage.success ? (usage.data as ModelUsage) : undefined, {
      tokens: output.tokens,
      contextTokens: input.context.tokenEstimate,
    });
    if (cap !== undefined && ledger) await ledger.charge(account, day, cost);
    return { ...output, costMicros: cost };
  };
}

function refusal(cap: string, detail: string): SpendOutput {
  return { reply: null, tokens: 0, spendRefused: { cap, detail } };
}

function defaultModelId(model: ModelConfig, defaultModel: string | undefined): string | undefined {
  switch (model.adapter) {
    case 'openai':
      return model.model ?? defaultModel;
    case 'custom':
      return model.name;
    default:
      return model.adapter;
  }
}

function money(micros: number, prices: PriceTable): string {
  return `${(micros / 1_000_000).toFixed(6)} ${prices.currency}`;
}

/**
 * Spend options from a worker's environment: SPEND_PRICES_FILE (a price table as JSON),
 * SPEND_DAILY_CAPS (JSON: team -> micros per day, `*` for any other team) and SPEND_LEDGER
 * (the SQLite file; default `<dataDir>/spend.sqlite`). Bad values stop the worker at start.
 */
export async function spendOptionsFromEnv(env: Record<string, string | undefined>, dataDir: string): Promise<SpendOptions> {
  const options: SpendOptions = {};
  const pricesFile = env.SPEND_PRICES_FILE?.trim();
  if (pricesFile) {
    const table = parsePriceTable(readFileSync(pricesFile, 'utf8'));
    if (!table.ok) throw new Error(`SPEND_PRICES_FILE ${pricesFile}: ${table.problem}`);
    options.prices = table.table;
  }
  const defaultModel = env.OPENAI_MODEL?.trim();
  if (defaultModel) options.defaultModel = defaultModel;
  const capsText = env.SPEND_DAILY_CAPS?.trim();
  if (capsText) {
    let raw: unknown;
    try {
      raw = JSON.parse(capsText);
    } catch {
      throw new Error('SPEND_DAILY_CAPS must be JSON such as {"payments-team": 5000000, "*": 1000000}');
    }
    const caps = DailyCaps.safeParse(raw);
    if (!caps.success) throw new Error(`SPEND_DAILY_CAPS: ${caps.error.issues[0]?.message ?? 'invalid'}: team -> whole micros per day`);
    options.dailyCaps = caps.data;
    options.ledger = await openSqliteLedger(env.SPEND_LEDGER?.trim() || `${dataDir}/spend.sqlite`);
  }
  return options;
}
