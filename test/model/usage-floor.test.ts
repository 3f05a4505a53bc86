// The floor under reported usage, through the model activity as a worker runs it (the engine's
// `propose`, priced by withSpend) and each provider's real AI SDK package, against a loopback
// server speaking that provider's wire protocol and reporting 0 tokens, or none: the call is
// charged at least the engine's estimate of the request body that reached the server and of the
// reply it sent back, priced on those numbers, and the reply says the floor applied. An endpoint
// whose counts are above the estimate is charged exactly what it reported, with no floor.
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registry } from '../../activities/implement.js';
import { modelActivities, type ProposeInput } from '../../activities/model/index.js';
import { createProviderAdapter, type ProviderName } from '../../activities/model/providers.js';
import { parsePriceTable } from '../../activities/spend/prices.js';
import { withSpend, type SpendOutput } from '../../activities/spend/spending.js';
import { implementations } from '../../domains/implementations.js';
import type { CompiledContext } from '../../workflows/controller/context.js';
import { startProviderServer, type Dialect, type ProviderServer } from './provider-server.js';

const IN_PRICE = 2;
const OUT_PRICE = 8;
const PRICES = parsePriceTable({ currency: 'USD', models: { 'under-test': { inputPerMillion: IN_PRICE, outputPerMillion: OUT_PRICE } } });
const CONTEXT_ESTIMATE = 300;
const READ = { name: 'read_ledger', args: { transferId: 'PX-1042' } };

const context: CompiledContext = {
  domain: 'payments',
  caseId: 'PX-1042',
  goal: 'Transfer PX-1042 left the account but never arrived. Establish its true status.',
  strategy: 'window_pinned',
  runtime: { turn: 1, left: { turns: 5, toolCalls: 8, effects: 1, duplicates: 2, tokens: 50_000, msLeft: 500_000 }, deadlineAt: Date.now() + 500_000 },
  tools: [],
  transcript: [],
  evidence: [],
  pinned: [],
  notes: [],
  tokenEstimate: CONTEXT_ESTIMATE,
};
const input: ProposeInput = { domain: 'payments', caseId: 'PX-1042', model: { adapter: 'custom', name: 'under-test' }, context, proposalIndex: 0 };

const PROVIDERS: { provider: ProviderName; dialect: Dialect }[] = [
  { provider: 'openai-compatible', dialect: 'chat' },
  { provider: 'openai', dialect: 'responses' },
  { provider: 'anthropic', dialect: 'anthropic' },
  { provider: 'google', dialect: 'google' },
];

describe.each(PROVIDERS)('$provider ($dialect): usage below what was on the wire', ({ provider, dialect }) => {
  let server: ProviderServer;
  let propose: (i: ProposeInput) => Promise<SpendOutput>;

  beforeAll(async () => {
    if (!PRICES.ok) throw new Error(PRICES.problem);
    server = await startProviderServer(dialect);
    const adapter = createProviderAdapter({ provider, modelId: 'recorded-model', baseUrl: server.baseUrl, apiKeyEnv: 'K', timeoutMs: 60_000 }, { K: 'k' });
    const activity = modelActivities({ custom: { 'under-test': adapter } }, registry(implementations)).propose;
    const priced = withSpend(activity, { prices: PRICES.table });
    // The activity runs in a real activity context, as on a worker (it heartbeats while it waits).
    propose = (i) => new MockActivityEnvironment().run(priced, i);
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => server.reset());

  const estimates = () => estimatesOf(server);

  it('0 tokens reported: each side is charged the estimate, priced on it, and the reply says so', async () => {
    server.enqueue({ calls: [READ], usage: { input: 0, output: 0 } });
    const out = await propose(input);
    const est = estimates();
    // The request carried kilobytes: the estimate is far from nothing.
    expect(est.input).toBeGreaterThan(500);
    expect(out.reply).toEqual({ type: 'call', calls: [{ tool: 'read_ledger', args: { transferId: 'PX-1042' } }] });
    expect(out.usage).toEqual({ inputTokens: est.input, outputTokens: est.output, estimated: true });
    expect(out.tokens).toBe(est.input + est.output);
    expect(out.costMicros).toBe(Math.ceil(est.input * IN_PRICE + est.output * OUT_PRICE));
    expect(out.usageFloor).toEqual({ input: { reported: 0, charged: est.input }, output: { reported: 0, charged: est.output } });
  });

  it('an honest count above the estimate is charged as reported, with no floor', async () => {
    server.enqueue({ calls: [READ], usage: { input: 40_000, output: 900 } });
    const out = await propose(input);
    expect(estimates().input).toBeLessThan(40_000);
    expect(out.usage).toEqual({ inputTokens: 40_000, outputTokens: 900 });
    expect(out.tokens).toBe(40_900);
    expect(out.costMicros).toBe(40_000 * IN_PRICE + 900 * OUT_PRICE);
    expect(out).not.toHaveProperty('usageFloor');
  });

  it('one side under-reported: only that side is floored', async () => {
    server.enqueue({ calls: [READ], usage: { input: 40_000, output: 0 } });
    const out = await propose(input);
    const est = estimates();
    expect(out.usage).toEqual({ inputTokens: 40_000, outputTokens: est.output, estimated: true });
    expect(out.usageFloor).toEqual({ output: { reported: 0, charged: est.output } });
    expect(out.costMicros).toBe(Math.ceil(40_000 * IN_PRICE + est.output * OUT_PRICE));
  });
});

// Anthropic's protocol always carries counts (a missing one is written as 0, covered above); the others may leave usage out.
describe.each(PROVIDERS.filter((p) => p.dialect !== 'anthropic'))('$provider ($dialect): no usage at all', ({ provider, dialect }) => {
  it('is charged the estimate, and the reply says the floor applied', async () => {
    if (!PRICES.ok) throw new Error(PRICES.problem);
    const server = await startProviderServer(dialect);
    try {
      const adapter = createProviderAdapter({ provider, modelId: 'recorded-model', baseUrl: server.baseUrl, apiKeyEnv: 'K', timeoutMs: 60_000 }, { K: 'k' });
      const priced = withSpend(modelActivities({ custom: { 'under-test': adapter } }, registry(implementations)).propose, { prices: PRICES.table });
      server.enqueue({ calls: [READ] });
      const out: SpendOutput = await new MockActivityEnvironment().run(priced, input);
      const est = estimatesOf(server);
      expect(out.tokens).toBe(est.input + est.output);
      expect(out.costMicros).toBe(Math.ceil(est.input * IN_PRICE + est.output * OUT_PRICE));
      expect(out.usageFloor).toEqual({ input: { reported: 0, charged: est.input }, output: { reported: 0, charged: est.output } });
    } finally {
      await server.close();
    }
  });
});

/** The engine's estimate, recomputed here from what reached the server and what it answered. */
function estimatesOf(server: ProviderServer): { input: number; output: number } {
  const body = server.requests.at(-1)?.body;
  if (!body) throw new Error('nothing reached the provider server');
  return {
    input: Math.max(CONTEXT_ESTIMATE, Math.ceil(JSON.stringify(body).length / 4)),
    output: Math.ceil(`${READ.name} ${JSON.stringify(READ.args)}`.length / 4),
  };
}
