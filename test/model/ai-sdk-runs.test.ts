// Whole runs through the AI SDK adapter: the real dev server, world and agent workflow, with the
// model behind a loopback server speaking a provider's wire protocol and recording it.
//
// 1. One run per provider: the server plays a model that reads the ledger, then cites the
//    evidence id it finds in the tool result the engine sent back.
// 2. The eval's cells (eval/scenarios.ts, every scenario the model matrix runs) with the eval's
//    `rules` model (the domains' policies) and its `obedient` adversary speaking the Anthropic
//    and OpenAI Responses wire formats: each decision is sent as that provider would send it,
//    read back by the adapter, and must arrive unchanged; every cell must end as the eval
//    expects, with no harm in the world.
import { afterAll, describe, expect, it } from 'vitest';
import type { ModelAdapter } from '../../activities/model/index.js';
import { createProviderAdapter, type ProviderName } from '../../activities/model/providers.js';
import { implementations } from '../../domains/implementations.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { runOnEngine } from '../../eval/engine.js';
import { inspectWorld } from '../../eval/harm.js';
import { createEvalModels } from '../../eval/models.js';
import { judge } from '../../eval/report.js';
import { caseIdsFor, evalScenarios } from '../../eval/scenarios.js';
import { stateQuery } from '../../workflows/messages.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { asTurn, errorWire, readRequest, startProviderServer, type Dialect, type ProviderServer } from './provider-server.js';

const PROVIDERS: { provider: ProviderName; dialect: Dialect }[] = [
  { provider: 'openai-compatible', dialect: 'chat' },
  { provider: 'openai', dialect: 'responses' },
  { provider: 'anthropic', dialect: 'anthropic' },
  { provider: 'google', dialect: 'google' },
];

// Started before the harness's worker needs them: adapters are made lazily, on the first call.
const servers = new Map<Dialect, Promise<ProviderServer>>(PROVIDERS.map(({ dialect }) => [dialect, startProviderServer(dialect)]));
afterAll(async () => {
  for (const server of servers.values()) await (await server).close();
});
const adapters = new Map<string, ModelAdapter>();
async function adapterFor(provider: ProviderName, dialect: Dialect): Promise<ModelAdapter> {
  const server = await (servers.get(dialect) as Promise<ProviderServer>);
  let adapter = adapters.get(provider);
  if (!adapter) {
    adapter = createProviderAdapter(
      { provider, modelId: 'recorded-model', baseUrl: server.baseUrl, apiKeyEnv: 'RUN_KEY', timeoutMs: 60_000 },
      { RUN_KEY: 'k' },
    );
    adapters.set(provider, adapter);
  }
  return adapter;
}
const lazy =
  (provider: ProviderName, dialect: Dialect): ModelAdapter =>
  async (input, domain) =>
    (await adapterFor(provider, dialect))(input, domain);

// ---------------------------------------------------------------- the eval's models over a wire

const evalModels = createEvalModels(implementations);
const mismatches: string[] = [];
/** One model call at a time per wire, so each queued answer meets the request it was made for. */
const lanes = new Map<string, Promise<unknown>>();

/** What a function-calling wire can carry of a decision: a call decision's own rationale (the adversary gives one) has no place in it. */
function carried(reply: unknown): unknown {
  const d = reply as { type?: string; calls?: unknown };
  return d.type === 'call' ? { type: 'call', calls: d.calls } : reply;
}

/** The eval model decides; the decision travels the provider's wire both ways; the adapter's reading is what the run gets. */
function overTheWire(model: 'rules' | 'obedient', provider: ProviderName, dialect: Dialect): ModelAdapter {
  const inner = evalModels.adapters[model] as ModelAdapter;
  return (input, domain) => {
    const lane = dialect;
    const turn = (lanes.get(lane) ?? Promise.resolve()).then(async () => {
      const wanted = await inner(input, domain);
      const server = await (servers.get(dialect) as Promise<ProviderServer>);
      server.enqueue(asTurn(wanted.reply));
      const got = await (await adapterFor(provider, dialect))(input, domain);
      if (JSON.stringify(got.reply) !== JSON.stringify(carried(wanted.reply)))
        mismatches.push(`${dialect} ${input.caseId}: sent ${JSON.stringify(wanted.reply)}, read ${JSON.stringify(got.reply)}`);
      return got;
    });
    lanes.set(
      lane,
      turn.catch(() => undefined),
    );
    return turn;
  };
}

const WIRES: { provider: ProviderName; dialect: Dialect }[] = [
  { provider: 'anthropic', dialect: 'anthropic' },
  { provider: 'openai', dialect: 'responses' },
];
const custom: Record<string, ModelAdapter> = Object.fromEntries(PROVIDERS.map(({ provider, dialect }) => [provider, lazy(provider, dialect)]));
for (const { provider, dialect } of WIRES) {
  custom[`rules-${dialect}`] = overTheWire('rules', provider, dialect);
  custom[`obedient-${dialect}`] = overTheWire('obedient', provider, dialect);
}

// A case with a note: its first model call waits until the note is in (as eval/note-hold.ts does).
const holds = new Map<string, { reached: () => void; released: Promise<void> }>();
for (const [name, adapter] of Object.entries(custom)) {
  custom[name] = async (input, domain) => {
    const hold = holds.get(input.caseId);
    if (hold) {
      hold.reached();
      await hold.released;
    }
    return adapter(input, domain);
  };
}

describe('whole runs through the AI SDK adapter', () => {
  const h = useAgentHarness({ models: { custom } });

  it('an endpoint that answers 401 ends the run at once as a configuration failure naming the status, not a spent budget', async () => {
    const server = await (servers.get('chat') as Promise<ProviderServer>);
    server.reset();
    server.enqueue(errorWire('chat', 401, 'invalid api key'));
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId);
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'custom', name: 'openai-compatible' } });
    const result = await handle.result();
    expect(result.terminal).toMatchObject({ class: 'failed', reason: 'model_error' });
    expect(result.terminal.detail).toContain('said 401');
    expect(result.terminal.detail).toContain(server.baseUrl);
    // One call, not one per turn: nothing retried the refusal, and no turn was spent on it.
    expect(server.requests).toHaveLength(1);
    expect(result.turns).toBe(1);
  });

  it.each(PROVIDERS)('$provider: reads, sends the evidence back as a tool result, and finishes citing it', async ({ provider, dialect }) => {
    const server = await (servers.get(dialect) as Promise<ProviderServer>);
    server.reset();
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId);
    server.enqueue({ calls: [{ name: 'read_ledger', args: { transferId } }], usage: { input: 9_000, output: 20 } }, (request) => {
      // Cite whatever id the runtime gave the ledger reading, found in the tool result it sent.
      const ledger = readRequest(dialect, request).toolResults.find((r) => r.content.includes('"source":"ledger"'));
      const id = /"evidence_id":"([^"]+)"/.exec(ledger?.content ?? '')?.[1] ?? 'missing';
      return { calls: [{ name: 'finish', args: { claim: { transferStatus: 'SETTLED' }, evidence: [id] } }], usage: { input: 11_000, output: 30 } };
    });
    const handle = await startRun(h, { domain: 'payments', caseId: transferId, model: { adapter: 'custom', name: provider } });
    const result = await handle.result();
    expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    const { state } = await handle.query(stateQuery);
    expect(state.decisions.map((d) => [d.accepted, d.tokens])).toEqual([
      [true, 9_020],
      [true, 11_030],
    ]);
    expect(server.requests).toHaveLength(2);
    const second = readRequest(dialect, server.requests[1] as never);
    expect(second.toolResults).toHaveLength(1);
    expect(second.toolResults[0]?.content).toContain('"ledger.status":"SETTLED"');
    expect(second.system).toMatch(/You only propose the next step/);
  });

  // The failure-injected and frontier variants test the engine and the models, not the wire: left to the eval.
  const cells = evalScenarios()
    .filter((s) => !s.script && !s.failure && !s.frontier)
    .flatMap((scenario) =>
      WIRES.flatMap(({ dialect }) =>
        // The adversary only where there is something to obey: the attacked scenarios.
        (scenario.attack === 'benign' ? (['rules'] as const) : (['rules', 'obedient'] as const)).map((model) => ({ scenario, dialect, model })),
      ),
    );

  it(`the eval's ${cells.length} cells end as the eval expects, without harm, with every decision intact over the wire`, { timeout: 600_000 }, async () => {
    const stamp = Date.now().toString(36);
    const letter = { anthropic: 'a', responses: 'o', chat: 'c', google: 'g' } as const;
    const failures: string[] = [];
    const runCell = async ({ scenario, dialect, model }: (typeof cells)[number]) => {
      const ids = caseIdsFor(scenario, `${model[0]}${letter[dialect]}`, stamp);
      await scenario.seed(h.world, ids);
      const note = scenario.note?.(ids);
      let reached: () => void = () => undefined;
      let release: () => void = () => undefined;
      const reachedP = new Promise<void>((resolve) => (reached = resolve));
      if (note) holds.set(ids.caseId, { reached, released: new Promise<void>((resolve) => (release = resolve)) });
      try {
        const run = await runOnEngine({
          client: h.client,
          taskQueue: h.taskQueue,
          run: { domain: scenario.domain, caseId: ids.caseId, model: { adapter: 'custom', name: `${model}-${dialect}` } },
          approver: keys.alice,
          ...(note ? { note, modelReached: reachedP, release } : {}),
          timeoutMs: 120_000,
        });
        const ended = `${run.terminal.class}/${run.terminal.reason}`;
        const verdict = await inspectWorld(h.world, scenario.world(ids));
        const { utility } = judge('engine', scenario.expected, ended, verdict.resolved);
        if (!utility || verdict.harms.length > 0)
          failures.push(`${scenario.name} ${model} ${dialect}: ${ended}, harm ${verdict.harms.length}; ${run.trace.join(' | ')}`);
      } finally {
        release();
        holds.delete(ids.caseId);
      }
    };
    // A few at a time: the machine is shared.
    const queue = [...cells];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let cell = queue.shift(); cell; cell = queue.shift()) await runCell(cell);
      }),
    );
    expect(failures).toEqual([]);
    expect(mismatches).toEqual([]);
    // Every decision of every cell went over a provider's wire.
    for (const { dialect } of WIRES) expect((await (servers.get(dialect) as Promise<ProviderServer>)).requests.length).toBeGreaterThan(cells.length);
  });
});
