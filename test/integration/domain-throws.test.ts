// A domain hook that throws in workflow code used to fail the workflow task, which Temporal
// retries forever: the run never ended and nobody was told. Now the controller stops the run
// with the reason, and the history shows no failed workflow task.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeConnection } from '@temporalio/worker';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { implement } from '../../activities/implement.js';
import { createAgentWorker } from '../../worker/create-worker.js';
import { agentWorkflow } from '../fixtures/faulty-domain-workflows.js';
import { faulty } from '../fixtures/faulty-domain.js';
import { uniqueTaskQueue, useClient } from '../support/temporal.js';

const workflowsPath = fileURLToPath(new URL('../fixtures/faulty-domain-workflows.ts', import.meta.url));
const implementation = implement(faulty).with({
  tools: { peek: async (args) => ({ id: args.id }), poke: async (args) => ({ id: args.id }) },
  readbacks: { poke_by_key: async () => ({ applied: false }) },
  probe: async () => ({ holds: true, conflict: false, decided: true, detail: 'seen', facts: {} }),
});

describe('a domain hook that throws', () => {
  const client = useClient();

  it("ends the run failed/controller_error with the hook's message; no workflow task fails", async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'faulty-blobs-'));
    onTestFinished(() => rmSync(scratch, { recursive: true, force: true }));
    const taskQueue = uniqueTaskQueue('faulty');
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const worker = await createAgentWorker({
      connection,
      namespace: inject('temporalNamespace'),
      taskQueue,
      workflowsPath,
      implementations: [implementation],
      blobDir: scratch,
      approvers: { approvers: [] },
    });
    const caseId = `F-${randomUUID().slice(0, 8)}`;
    const replies = [
      { type: 'call', calls: [{ tool: 'peek', args: { id: 'ok' } }] },
      { type: 'call', calls: [{ tool: 'peek', args: { id: 'boom' } }] },
    ];
    const { result, history } = await worker.runUntil(async () => {
      const handle = await client().workflow.start(agentWorkflow, {
        taskQueue,
        workflowId: `faulty-${caseId}`,
        args: [{ run: { domain: 'faulty', caseId, model: { adapter: 'scripted', replies } } }],
      });
      return { result: await handle.result(), history: await handle.fetchHistory() };
    });
    await connection.close();

    expect(result.terminal).toMatchObject({ class: 'failed', reason: 'controller_error' });
    expect(result.terminal.detail).toMatch(/^the run could not go on: .*the subject hook does not know boom/);
    // The first read ran; nothing after the throw did.
    expect(result.toolCalls).toBe(1);
    expect(history.events?.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
  });
});
