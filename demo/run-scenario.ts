// Runs one scenario to its end on a live worker: seed the world, start the run, play the
// approver if the scenario has one, and return what the operator would see.
import type { Client } from '@temporalio/client';
import { signDecision, type KeyFile } from '../client/sign.js';
import { waitUntil } from '../client/wait.js';
import type { WorldClient } from '../domains/world/client.js';
import { agentWorkflow } from '../domains/workflows.js';
import { approveUpdate, stateQuery, type RunResult, type RunView } from '../workflows/messages.js';
import { caseIdFor, type Scenario } from './scenarios.js';
import { startSearchAttributes } from '../workflows/search-attributes.js';

export interface ScenarioOutcome {
  scenario: Scenario;
  workflowId: string;
  result: RunResult;
  view: RunView;
}

/** The demo's approvers, by id: their keys are made fresh for each demo run. */
export type DemoKeys = Record<string, KeyFile>;

export async function runScenario(client: Client, world: WorldClient, taskQueue: string, scenario: Scenario, stamp: string, keys: DemoKeys): Promise<ScenarioOutcome> {
  const caseId = caseIdFor(scenario, stamp);
  await scenario.seed(world, caseId);
  const workflowId = `${scenario.domain}-${caseId}`;
  const handle = await client.workflow.start(agentWorkflow, {
    taskQueue,
    workflowId,
    args: [{ run: { domain: scenario.domain, caseId, model: scenario.model(caseId) } }],
    // As AgentClient starts a run: findable by domain and case from the start.
    typedSearchAttributes: startSearchAttributes({ domain: scenario.domain, caseId }),
  });
  if (scenario.approveAs) {
    const view = await waitUntil(
      async () => {
        const v = await handle.query(stateQuery);
        return v.awaiting || v.state.terminal ? v : undefined;
      },
      'the run to ask for approval or end',
      { timeoutMs: 60_000, everyMs: 100 },
    );
    const key = keys[scenario.approveAs];
    if (!key) throw new Error(`the demo has no key for ${scenario.approveAs}`);
    if (view.awaiting) {
      // Signed with the approver's key over exactly the request and digest the run showed.
      await handle.executeUpdate(approveUpdate, { args: [signDecision(key, workflowId, view.awaiting, 'approve', 'demo approval')] });
    }
  }
  const result = await handle.result();
  return { scenario, workflowId, result, view: await handle.query(stateQuery) };
}

