// A model endpoint that goes away in the middle of runs, the way a model server restarting at
// 3 a.m. does: the runs retry the model call with backoff for as long as their outage allowance
// lets them (workflows/policy.ts MODEL_OUTAGE_MS, RunInput.modelOutageMs), and end as they would
// have once it is back; an endpoint that never comes back escalates `model_unavailable`, naming
// the turn, and fails nothing. The endpoint is a real HTTP server speaking the chat-completions
// wire (provider-server.ts) behind the real provider adapter; it is stopped and started again on
// the same port. The outage lasts until the runs have retried six times, not for a set time.
import { afterAll, describe, expect, it } from 'vitest';
import type { ModelAdapter } from '../../activities/model/index.js';
import { createProviderAdapter } from '../../activities/model/providers.js';
import { implementations } from '../../domains/implementations.js';
import { seedIncident, seedTransfer } from '../../domains/world/seeds.js';
import { createEvalModels } from '../../eval/models.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { asTurn, startProviderServer } from './provider-server.js';

let server = await startProviderServer('chat');
const baseUrl = server.baseUrl;
const port = Number(new URL(baseUrl).port);
afterAll(() => server.close());

const rules = createEvalModels(implementations).adapters.rules as ModelAdapter;
const wire = createProviderAdapter(
  { provider: 'openai-compatible', modelId: 'outage-model', baseUrl, apiKeyEnv: 'RUN_KEY', timeoutMs: 10_000 },
  { RUN_KEY: 'k' },
);
/** One model call on the wire at a time, so the answer queued for it is the one it gets. */
let lane: Promise<unknown> = Promise.resolve();
/** Cases whose first model call was answered, and those now held before their second until the endpoint is gone. */
const answered = new Set<string>();
const held = new Set<string>();
let openGate = () => {};
const gate = new Promise<void>((resolve) => (openGate = resolve));
/** The rules model decides; its decision crosses the chat-completions wire, or fails to while the server is down. */
const overTheWire: ModelAdapter = async (input, domain) => {
  // The second call of a case waits here (once) until the test has stopped the server: so the
  // outage falls in the middle of the run however fast or slow the machine is.
  if (answered.has(input.caseId) && !held.has(input.caseId)) {
    held.add(input.caseId);
    await gate;
  }
  const turn = lane.then(async () => {
    const wanted = await rules(input, domain);
    // An answer queued for an attempt that never reached the server is stale: drop it.
    server.reset();
    server.enqueue(asTurn(wanted.reply));
    return wire(input, domain);
  });
  lane = turn.catch(() => undefined);
  const out = await turn;
  answered.add(input.caseId);
  return out;
};

/** An endpoint nobody listens on: a port a server held a moment ago. */
const nobody = await startProviderServer('chat');
const downUrl = nobody.baseUrl;
await nobody.close();
const down = createProviderAdapter(
  { provider: 'openai-compatible', modelId: 'down', baseUrl: downUrl, apiKeyEnv: 'RUN_KEY', timeoutMs: 10_000 },
  { RUN_KEY: 'k' },
);

describe('a model endpoint that goes away', () => {
  const h = useAgentHarness({ models: { custom: { 'over-the-wire': overTheWire, down } } });

  it('stopped in the middle of two runs and started again: each retries, then ends as it would have', async () => {
    const incident = uniqueCase('INC');
    const transfer = uniqueCase('PX');
    await seedIncident(h.world, incident);
    await seedTransfer(h.world, transfer, { ledgerStatus: 'SETTLED', replicaStatus: 'SETTLED', processorAck: 'RECEIVED' });
    const model = { adapter: 'custom' as const, name: 'over-the-wire' };
    const runs = [await startRun(h, { domain: 'incidents', caseId: incident, model }), await startRun(h, { domain: 'payments', caseId: transfer, model })];

    // Each run has had its first answer and is about to ask again when the endpoint goes away.
    await until(async () => held.has(incident) && held.has(transfer), 'both runs at their second model call');
    await server.close();
    openGate();
    // The runs keep asking, backing off: a model call of each has been tried six times against
    // nothing (more than the five attempts a model call once had; about half a minute).
    for (const run of runs) await until(async () => (await modelAttempt(run)) >= 6, 'a model call tried six times');
    server = await startProviderServer('chat', port);

    const [incidentResult, transferResult] = await Promise.all(runs.map((r) => r.result()));
    expect(incidentResult?.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    expect(transferResult?.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    // What the world holds is what a run without the outage leaves: one restart of the cache, no reissue.
    const effects = await h.world.effects({ key: incident });
    expect(effects.map((e) => [e.kind, e.details.service])).toEqual([['restart', 'cache']]);
    expect(await h.world.effects({ key: transfer })).toEqual([]);
    // Half a minute of backoff is the floor of this test; the rest is two runs on a busy machine.
  }, 600_000);

  it('that never comes back: the run escalates model_unavailable once its allowance is spent, naming the turn, and sends nothing', async () => {
    const transfer = uniqueCase('PX');
    await seedTransfer(h.world, transfer, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const run = await startRun(h, { domain: 'payments', caseId: transfer, model: { adapter: 'custom', name: 'down' }, modelOutageMs: 3_000 });
    const result = await run.result();
    expect(result.terminal).toMatchObject({ class: 'escalated', reason: 'model_unavailable' });
    expect(result.terminal.detail).toMatch(/^the model did not answer while proposing turn 1: /);
    expect(await h.world.calls({ key: transfer })).toEqual([]);
  });
});

/** The attempt number of the run's model call in flight (0 when none is); a run that has ended fails the test at once. */
async function modelAttempt(run: Awaited<ReturnType<typeof startRun>>): Promise<number> {
  const { raw, status } = await run.describe();
  if (status.name !== 'RUNNING') throw new Error(`${run.workflowId} ended (${status.name}) while its model endpoint was down`);
  const call = raw.pendingActivities?.find((a) => a.activityType?.name === 'propose');
  return call?.attempt ?? 0;
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 3_000; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`never reached: ${what}`);
}
