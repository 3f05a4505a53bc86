// Failures are classified where they happen. A call the worker refuses before sending it (a tool
// it does not know: an older copy of the domain) is `failed`, not in doubt, and nothing is read
// back; a tool that ignores its timeout is given up on at the timeout, with its AbortSignal fired,
// and the receipt counts the attempts that really ran.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NativeConnection } from '@temporalio/worker';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { implement } from '../../activities/implement.js';
import { createAgentWorker } from '../../worker/create-worker.js';
import { stateQuery } from '../../workflows/messages.js';
import { agentWorkflow } from '../fixtures/faulty-domain-workflows.js';
import { faulty, peek } from '../fixtures/faulty-domain.js';
import { uniqueTaskQueue, useClient } from '../support/temporal.js';

const workflowsPath = fileURLToPath(new URL('../fixtures/faulty-domain-workflows.ts', import.meta.url));
const signals: AbortSignal[] = [];
const readbacks: string[] = [];
// The worker's copy of the domain predates `poke`: the workflow code knows it, the worker does not.
const olderDomain = { ...faulty, tools: [peek] as const };
const implementation = implement(olderDomain).with({
  tools: {
    peek: async (args, ctx) => {
      if (args.id !== 'slow') return { id: args.id };
      if (ctx.signal) signals.push(ctx.signal);
      return new Promise<never>(() => undefined); // ignores its signal and never answers
    },
  },
  readbacks: {},
  probe: async () => ({ holds: true, conflict: false, decided: true, detail: 'seen', facts: {} }),
});

describe('failures classified where they happen', () => {
  const client = useClient();

  it('a call refused before dispatch is failed with one attempt; a tool that ignores its timeout is cut off at it', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'dispatch-blobs-'));
    onTestFinished(() => rmSync(scratch, { recursive: true, force: true }));
    const taskQueue = uniqueTaskQueue('dispatch');
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const worker = await createAgentWorker({
      connection,
      namespace: inject('temporalNamespace'),
      taskQueue,
      workflowsPath,
      implementations: [implementation as never],
      blobDir: scratch,
      approvers: { approvers: [] },
      toolTimeoutMs: 300,
    });
    const caseId = `F-${randomUUID().slice(0, 8)}`;
    const replies = [
      { type: 'call', calls: [{ tool: 'poke', args: { id: caseId }, sources: { id: 'case' } }] }, // the case id, cited as such
      { type: 'call', calls: [{ tool: 'peek', args: { id: 'slow' } }] },
      { type: 'escalate', reason: 'nothing more to try' },
    ];
    const { result, view } = await worker.runUntil(async () => {
      const handle = await client().workflow.start(agentWorkflow, {
        taskQueue,
        workflowId: `faulty-${caseId}`,
        args: [{ run: { domain: 'faulty', caseId, model: { adapter: 'scripted', replies } } }],
      });
      const result = await handle.result();
      return { result, view: await handle.query(stateQuery) };
    });
    await connection.close();

    expect(result.terminal.class).toBe('escalated');
    // Never sent, so not in doubt: no readback was asked for, and the ledger says failed.
    expect(result.effects).toMatchObject([{ tool: 'poke', status: 'failed', readbacks: 0 }]);
    expect(readbacks).toEqual([]);
    const receipts = view.state.executions;
    expect(receipts.find((r) => r.tool === 'poke')).toMatchObject({ attempt: 1, accepted: false });
    const poked = view.state.evidence.find((e) => e.tool === 'poke');
    expect(poked?.error).toMatchObject({ class: 'not_sent', message: expect.stringMatching(/^no tool poke in faulty on this worker/) });
    // The slow read: three attempts, each cut off at 300 ms with its signal fired.
    expect(receipts.find((r) => r.tool === 'peek')).toMatchObject({ attempt: 3, result: 'timeout' });
    expect(signals).toHaveLength(3);
    expect(signals.every((s) => s.aborted)).toBe(true);
    expect(view.state.evidence.find((e) => e.tool === 'peek')?.error?.message).toMatch(/no answer within 300 ms/);
  });
});
