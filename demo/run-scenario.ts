// Runs one scenario to its end on a live worker: seed the world, start the run, play the
// approver if the scenario has one, and return what the operator would see.
import type { Client } from '@temporalio/client';
import { waitUntil } from '../client/wait.js';
import type { WorldClient } from '../domains/world/client.js';
import { agentWorkflow } from '../workflows/agent.js';
import { approveUpdate, stateQuery, type RunResult, type RunView } from '../workflows/messages.js';
import { caseIdFor, type Scenario } from './scenarios.js';

export interface ScenarioOutcome {
  scenario: Scenario;
  workflowId: string;
  result: RunResult;
  view: RunView;
}

export async function runScenario(client: Client, world: WorldClient, taskQueue: string, scenario: Scenario, stamp: string): Promise<ScenarioOutcome> {
  const caseId = caseIdFor(scenario, stamp);
  await scenario.seed(world, caseId);
  const workflowId = `${scenario.domain}-${caseId}`;
  const handle = await client.workflow.start(agentWorkflow, {
    taskQueue,
    workflowId,
    args: [{ run: { domain: scenario.domain, caseId, model: scenario.model(caseId) } }],
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
    if (view.awaiting) {
      await handle.executeUpdate(approveUpdate, {
        args: [{ requestId: view.awaiting.requestId, by: scenario.approveAs, digest: view.awaiting.digest, comment: 'demo approval' }],
      });
    }
  }
  const result = await handle.result();
  return { scenario, workflowId, result, view: await handle.query(stateQuery) };
}

