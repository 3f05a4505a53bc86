// One engine, a queue per domain (issue: a team with three domains needed three consoles). Two
// agent workers poll two queues; a third queue has a run and no worker of the team's. The CLI and
// the console, told the team's queues (AGENT_TASK_QUEUE and AGENT_TASK_QUEUES, or the client's
// taskQueues), serve the runs of both: status asks the worker, an approval is signed and moves
// money, export writes the record, the console lists both queues with their pollers. A run on a
// queue the team did not name is still not one of its runs; and without AGENT_TASK_QUEUES the
// same CLI refuses to sign for the other queue's run, which the world confirms.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { writeKeyFile } from '../../client/sign.js';
import { startConsole } from '../../console/server.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { reissuesOf, waitForRequest } from '../support/adversarial.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { cliEnv, runCliHere } from '../support/cli.js';
import { keys } from '../support/keys.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { agentWorkflow } from '../../domains/workflows.js';
import { startSearchAttributes } from '../../workflows/search-attributes.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-queues-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const aliceKey = join(dir, 'alice.json');
writeKeyFile(aliceKey, keys.alice);

describe('one engine serving runs on two task queues', () => {
  const first = useAgentHarness();
  const second = useAgentHarness();

  it('status, approve, export and the console serve both queues; a run on a third is not one of its runs', async () => {
    const settings = { AGENT_STATUS_TIMEOUT_MS: '30000', USER: 'queue-tester' };
    const team = (...args: string[]) => runCliHere(args, cliEnv(first.taskQueue, { ...settings, AGENT_TASK_QUEUES: ` ${second.taskQueue} ,` }));
    const firstOnly = (...args: string[]) => runCliHere(args, cliEnv(first.taskQueue, { ...settings, AGENT_TASK_QUEUES: '' }));

    // A reissue waiting for approval on the second queue; an unserved run on a third.
    const transferId = uniqueCase('PX');
    await seedTransfer(second.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const handle = await startRun(second, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' }, approvalTimeoutMs: 3_600_000 });
    const awaiting = await waitForRequest(handle);
    const strangerCase = uniqueCase('PX');
    const stranger = await first.client.workflow.start(agentWorkflow, {
      taskQueue: uniqueTaskQueue('nobody-of-ours'),
      workflowId: `payments-${strangerCase}`,
      args: [{ run: { domain: 'payments', caseId: strangerCase, model: { adapter: 'rules' } } }],
      typedSearchAttributes: startSearchAttributes({ domain: 'payments', caseId: strangerCase }),
    });

    // Told only the first queue, the CLI does not ask the second queue's run, nor sign for it.
    const [narrow, refused] = await Promise.all([
      firstOnly('status', handle.workflowId, '--json'),
      firstOnly('approve', handle.workflowId, awaiting.requestId, '--key', aliceKey),
    ]);
    expect(JSON.parse(narrow.stdout)).toMatchObject({ workerAsked: false });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`task queue ${second.taskQueue} is not ${first.taskQueue}`);
    expect(await reissuesOf(second.world, transferId)).toEqual([]);

    // Told both, it asks the worker, and the approval it signs moves the money once.
    const status = await team('status', handle.workflowId, '--json');
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ answeredBy: 'worker', phase: 'awaiting_approval', execution: { taskQueue: second.taskQueue } });
    const approved = await team('approve', handle.workflowId, awaiting.requestId, '--key', aliceKey);
    expect(approved.code, approved.stderr).toBe(0);
    const result = await handle.result();
    expect(result.terminal.class).toBe('resolved');
    expect(await reissuesOf(second.world, transferId)).toHaveLength(1);
    const exported = await team('export', handle.workflowId);
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({ runId: handle.workflowId });

    // The console of a client told both queues: both listed with their pollers, the stranger marked.
    const agent = new AgentClient({ client: first.client, taskQueue: first.taskQueue, taskQueues: [second.taskQueue] });
    const web = await startConsole({ agent });
    try {
      const rowIn = (page: string, runId: string) => new RegExp(`<tr data-run-id="${runId}">([\\s\\S]*?)</tr>`).exec(page)?.[1] ?? '';
      // Visibility is eventually consistent: ask again until both runs are listed.
      let page = '';
      for (let i = 0; i < 150; i++) {
        page = await (await fetch(`${web.url}/?domain=payments`)).text();
        if (rowIn(page, handle.workflowId) && rowIn(page, stranger.workflowId)) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(page).toContain(`<code>${first.taskQueue}</code> (1 polling)`);
      expect(page).toContain(`<code>${second.taskQueue}</code> (1 polling)`);
      expect(rowIn(page, handle.workflowId)).not.toBe('');
      expect(rowIn(page, handle.workflowId)).not.toContain('not served');
      expect(rowIn(page, stranger.workflowId)).toContain("not served by this engine's queue");
    } finally {
      await web.close();
      await stranger.terminate('test: done');
    }
  });
});
