// Runs one scenario to its end on a live worker: seed the world, start the run, play the
// approver if the scenario has one, and return what the operator would see. It drives the run
// through AgentClient exactly as the README tells a user to (start, watch, approve with a key
// file), so the demo exercises the path people copy, errors included.
import type { Shape } from '../workflows/controller/index.js';
import type { Client } from '@temporalio/client';
import { AgentClient } from '../client/agent-client.js';
import type { KeyFile } from '../client/sign.js';
import { incidents } from '../domains/incidents/domain.js';
import { payments } from '../domains/payments/domain.js';
import { synthetic } from '../domains/synthetic/domain.js';
import type { WorldClient } from '../domains/world/client.js';
import type { RunResult, RunView } from '../workflows/messages.js';
import { caseIdFor, type Scenario } from './scenarios.js';

export interface ScenarioOutcome {
  scenario: Scenario;
  workflowId: string;
  result: RunResult;
  view: RunView;
}

/** The demo's approvers, by id: their keys are made fresh for each demo run. */
export type DemoKeys = Record<string, KeyFile>;

export const exampleDomains = [payments, incidents, synthetic] as const;

export async function runScenario(
  client: Client,
  world: WorldClient,
  taskQueue: string,
  scenario: Scenario,
  stamp: string,
  keys: DemoKeys,
  options: { shape?: Shape } = {},
): Promise<ScenarioOutcome> {
  const agent = new AgentClient({ client, taskQueue, domains: exampleDomains });
  const key = scenario.approveAs === undefined ? undefined : keys[scenario.approveAs];
  if (scenario.approveAs !== undefined && !key) throw new Error(`the demo has no key for ${scenario.approveAs}`);
  const caseId = caseIdFor(scenario, stamp);
  await scenario.seed(world, caseId);
  const run = await agent.start({ domain: scenario.domain, caseId, model: scenario.model(caseId), ...(options.shape ? { shape: options.shape } : {}) });
  if (key) {
    // As an operator would: follow the run, and decide on the request it shows.
    for await (const item of agent.watch(run.runId)) {
      if (item.type !== 'approval_request') continue;
      await agent.approve(run.runId, item.requestId, key, { comment: 'demo approval' });
      break;
    }
  }
  const result = await run.handle.result();
  return { scenario, workflowId: run.runId, result, view: await agent.queryState(run.runId) };
}
