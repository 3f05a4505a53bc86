// A slow model, end to end: every demo scenario under `react` and `hybrid`, once with the model
// answering at once and once with a model whose every turn outlasts the freshness of the
// evidence it was shown (test/fixtures/slow-model.ts waits on the clock until it has gone stale;
// the domains' evidence stays fresh for seconds, test/fixtures/slow-model-workflows.ts). Each
// case must end as it did with the fast model, with the same effects in the world: the engine
// re-reads what went stale under a proposal instead of refusing it (workflows/controller/refresh.ts).
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario, type ScenarioOutcome } from '../../demo/run-scenario.js';
import { caseIdFor, scenarios, type Scenario } from '../../demo/scenarios.js';
import type { WorldClient } from '../../domains/world/client.js';
import type { ProposeInput } from '../../activities/model/index.js';
import { untilStale } from '../fixtures/slow-model.js';
import { keys } from '../support/keys.js';
import { startWorkerWith, uniqueTaskQueue, type StartedWorker } from '../support/temporal.js';

const shapes = ['react', 'hybrid'] as const;
const slowWorkflows = fileURLToPath(new URL('../fixtures/slow-model-workflows.ts', import.meta.url));

/** What the world holds for a case: the kinds of effect it applied, in order. */
async function effectsOf(world: WorldClient, scenario: Scenario, stamp: string): Promise<string[]> {
  const effects = await world.effects({ key: caseIdFor(scenario, stamp) });
  return effects.map((e) => e.kind);
}

describe('a slow model: every turn outlasts the evidence it saw', () => {
  let fast: StartedWorker;
  let slow: StartedWorker;
  let modelWaits = 0;

  beforeAll(async () => {
    [fast, slow] = await Promise.all([
      startWorkerWith({ taskQueue: uniqueTaskQueue('model-fast') }),
      startWorkerWith({
        taskQueue: uniqueTaskQueue('model-slow'),
        workflowsPath: slowWorkflows,
        swap: (built) => ({
          propose: async (input: ProposeInput) => {
            if (input.context.evidence.some((e) => e.status === 'ok')) modelWaits++;
            await untilStale(input.context.evidence);
            return built.propose(input);
          },
        }),
      }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([fast?.close(), slow?.close()]);
  });

  it.each(shapes)(
    'under %s, each scenario ends as it does with a fast model, with the same effects in the world',
    async (shape) => {
      const stamp = `${shape}${Date.now().toString(36)}`;
      const demoKeys = { 'alice@ops': keys.alice };
      const runAll = (worker: StartedWorker, prefix: string) =>
        Promise.all(scenarios.map((s) => runScenario(worker.client, worker.world, worker.taskQueue, s, `${prefix}${stamp}`, demoKeys, { shape })));
      const [quick, slowed] = await Promise.all([runAll(fast, 'f'), runAll(slow, 's')]);
      const ending = (o: ScenarioOutcome) => `${o.scenario.name}: ${o.result.terminal.class}/${o.result.terminal.reason}`;
      expect(slowed.map(ending)).toEqual(quick.map(ending));
      for (const [i, scenario] of scenarios.entries()) {
        const [before, after] = await Promise.all([effectsOf(fast.world, scenario, `f${stamp}`), effectsOf(slow.world, scenario, `s${stamp}`)]);
        expect(after, scenario.name).toEqual(before);
        // The mechanism, not luck: where the model proposed the effects (react), the slow runs that
        // acted re-read stale evidence first. In hybrid the route takes those steps without a model turn.
        if (shape === 'react' && before.length > 0)
          expect(
            slowed[i]?.view.state.decisions.some((d) => d.reason === 'refreshing'),
            scenario.name,
          ).toBe(true);
      }
      // The model really was slow: it waited for staleness on turns that had evidence.
      expect(modelWaits).toBeGreaterThan(0);
    },
    300_000,
  );
});
