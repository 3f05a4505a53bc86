// No stranded cases: `start` on a task queue no worker polls is refused, naming the queue that
// serves the domain; `--force` starts anyway; `clear` terminates such a run as cleared (who, why,
// in the server's record) and frees the case, so a start on the served queue runs to its end. A
// run closed any other way keeps its case, and a served run is cleared only when forced. The
// CLI is called in this process (cliMain) against the shared dev server, with a real worker on
// one queue.
import type { WorkflowHandle } from '@temporalio/client';
import { describe, expect, inject, it } from 'vitest';
import { seedTransfer } from '../../domains/world/seeds.js';
import type { AgentWorkflow } from '../../workflows/agent.js';
import { uniqueCase, useAgentHarness } from '../support/agent.js';
import { waitForRequest } from '../support/adversarial.js';
import type { ScriptResult } from '../support/run-script.js';
import { cliEnv, runCliHere } from '../support/cli.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { waitUntil } from '../support/wait.js';

// HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT: the server's own record of how an execution closed.
const CLOSE_EVENT = 2;

describe.concurrent('stranded cases', () => {
  const h = useAgentHarness();
  const unpolled = uniqueTaskQueue('nobody-polls');

  const cli = (queue: string, ...args: string[]): Promise<ScriptResult> => runCliHere(args, cliEnv(queue, { USER: 'stranded-tester' }));
  const handleOf = (runId: string): WorkflowHandle<AgentWorkflow> => h.client.workflow.getHandle<AgentWorkflow>(runId);
  const closeReason = async (runId: string): Promise<{ reason: string; identity: string } | undefined> => {
    const { runId: executionRunId } = await handleOf(runId).describe();
    const response = await h.client.workflowService.getWorkflowExecutionHistory({
      namespace: inject('temporalNamespace'),
      execution: { workflowId: runId, runId: executionRunId },
      historyEventFilterType: CLOSE_EVENT,
    });
    const attrs = response.history?.events?.at(-1)?.workflowExecutionTerminatedEventAttributes;
    return attrs ? { reason: attrs.reason ?? '', identity: attrs.identity ?? '' } : undefined;
  };
  const oneLineError = (r: ScriptResult, code: number): string => {
    expect(r.code, r.stderr).toBe(code);
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    expect(lines, r.stderr).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    return lines[0] ?? '';
  };

  /** A payments case run to its end on the served queue, so the domain's recent runs name that queue. */
  async function servedRunVisible(): Promise<void> {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'SETTLED' });
    const started = await cli(h.taskQueue, 'start', 'payments', transferId, '--turns', '6', '--json');
    expect(started.code, started.stderr).toBe(0);
    await handleOf(`payments-${transferId}`).result();
    await waitUntil(async () => {
      for await (const run of h.client.workflow.list({ query: `WorkflowId = 'payments-${transferId}'` })) return run.taskQueue === h.taskQueue;
      return false;
    }, 'the served run in the visibility store');
  }

  it('refuses a start on an unpolled queue naming the served one; --force starts it; clear frees the case; a start on the served queue then resolves', async () => {
    await servedRunVisible();
    const transferId = uniqueCase('PX');
    const runId = `payments-${transferId}`;
    await seedTransfer(h.world, transferId, { ledgerStatus: 'SETTLED' });

    const refused = oneLineError(await cli(unpolled, 'start', 'payments', transferId), 1);
    expect(refused).toContain(`no worker polls task queue ${unpolled}`);
    expect(refused).toMatch(new RegExp(`task queues? with a worker serving payments: [^;]*${h.taskQueue}`));
    expect(refused).toContain('--force starts it here anyway');
    // Refused before anything reached the server: the case has no run.
    await expect(handleOf(runId).describe()).rejects.toThrow();

    const forced = await cli(unpolled, 'start', 'payments', transferId, '--force', '--json');
    expect(forced.code, forced.stderr).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ runId, attached: false, taskQueue: unpolled });

    // The served queue cannot take the case while the stranded run holds it, and is told how to free it.
    const blocked = oneLineError(await cli(h.taskQueue, 'start', 'payments', transferId), 1);
    expect(blocked).toContain(`task queue: run is served by task queue ${unpolled}`);
    expect(blocked).toContain(`npm run cli -- clear ${runId} --reason`);

    expect(oneLineError(await cli(h.taskQueue, 'clear', runId), 2)).toContain('clear needs --reason');
    const cleared = await cli(h.taskQueue, 'clear', runId, '--reason', 'started on the wrong queue');
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(cleared.stdout).toContain(`cleared run ${runId} (it was on task queue ${unpolled})`);
    expect(cleared.stdout).toContain(h.taskQueue);
    expect((await handleOf(runId).describe()).status.name).toBe('TERMINATED');
    expect((await closeReason(runId))?.reason).toMatch(/^agent clear by stranded-tester: started on the wrong queue/);
    expect(oneLineError(await cli(h.taskQueue, 'clear', runId, '--reason', 'again'), 1)).toContain('was already cleared');
    // `list` shows it closed, not in the phase it was in when it was cleared.
    const listed = await waitUntil(async () => {
      const rows = JSON.parse((await cli(h.taskQueue, 'list', '--json', '--limit', '1000')).stdout) as {
        runId: string;
        status: string;
        phase: string | null;
      }[];
      return rows.find((r) => r.runId === runId && r.status === 'TERMINATED');
    }, 'the cleared run listed as terminated');
    expect(listed.phase).toBe('closed');

    const restarted = await cli(h.taskQueue, 'start', 'payments', transferId, '--turns', '6', '--json');
    expect(restarted.code, restarted.stderr).toBe(0);
    expect(JSON.parse(restarted.stdout)).toMatchObject({ runId, attached: false, taskQueue: h.taskQueue });
    const result = await handleOf(runId).result();
    expect(result.terminal.class).toBe('resolved');
  });

  it('a run terminated by other means keeps its case: only a clear frees it', async () => {
    const transferId = uniqueCase('PX');
    const runId = `payments-${transferId}`;
    const forced = await cli(unpolled, 'start', 'payments', transferId, '--force');
    expect(forced.code, forced.stderr).toBe(0);
    await handleOf(runId).terminate('stopped by hand');
    expect(oneLineError(await cli(h.taskQueue, 'start', 'payments', transferId), 1)).toContain('already ran with different settings');
    expect((await closeReason(runId))?.reason).toBe('stopped by hand');
    // And a closed run is the case's record: clear does not rewrite it.
    expect(oneLineError(await cli(h.taskQueue, 'clear', runId, '--reason', 'x'), 1)).toContain('is not open');
  });

  it('a run a worker serves is cleared only with --force, and then its case starts afresh', async () => {
    const transferId = uniqueCase('PX');
    const runId = `payments-${transferId}`;
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED' });
    const started = await cli(h.taskQueue, 'start', 'payments', transferId);
    expect(started.code, started.stderr).toBe(0);
    await waitForRequest(handleOf(runId));

    const refused = oneLineError(await cli(h.taskQueue, 'clear', runId, '--reason', 'tidy up'), 1);
    expect(refused).toContain(`a worker polls its task queue ${h.taskQueue}`);
    expect(refused).toContain('--force clears it anyway');
    expect((await handleOf(runId).describe()).status.name).toBe('RUNNING');

    const cleared = await cli(h.taskQueue, 'clear', runId, '--reason', 'tidy up', '--force', '--as', 'ops-lead', '--json');
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(JSON.parse(cleared.stdout)).toMatchObject({ runId, cleared: true, by: 'ops-lead' });
    expect((await closeReason(runId))?.reason).toMatch(/^agent clear by ops-lead: tidy up/);
    const again = await cli(h.taskQueue, 'start', 'payments', transferId, '--json');
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ runId, attached: false });
  });
});
