// A deploy while approvals wait, under Worker Versioning on the dev server: build A's worker
// (in this process) starts payment runs that park on a reissue approval; build B (a worker
// process configured from its environment) is deployed and made current while A keeps
// running. Each run stays pinned to A until the engine's own continue-as-new, which moves it
// to B with its folded state (a pending approval included): one run is approved on A and
// moves after its effect; the other moves while still waiting, and is approved on B. The
// histories say which build completed every workflow task, that none failed (nothing
// replayed non-deterministically) and where each run moved; the world says each reissue
// happened once; every execution's history replays on the code here. AgentClient, the
// console's run page and the CLI's `status` and `list` show the build a run is on.
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { signDecision } from '../../client/sign.js';
import { reportFragment } from '../../console/report-views.js';
import { waitUntil } from '../support/wait.js';
import { implementations } from '../../domains/implementations.js';
import { WorldClient } from '../../domains/world/client.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { createAgentWorker } from '../../worker/create-worker.js';
import { addNoteUpdate, approveUpdate, stateQuery, type RunView } from '../../workflows/messages.js';
import { startRun, uniqueCase } from '../support/agent.js';
import { spawnWorker } from '../support/crash.js';
import type { ScriptResult } from '../support/run-script.js';
import { cliEnv, runCliHere } from '../support/cli.js';
import { keys, TEST_DIRECTORY } from '../support/keys.js';
import { uniqueTaskQueue, useClient } from '../support/temporal.js';

const world = new WorldClient(inject('worldUrl'));
const stops: Array<() => Promise<void>> = [];
afterAll(async () => {
  await Promise.all(stops.map((stop) => stop()));
});

/** One build's worker, in this process, under Worker Versioning. */
async function startBuild(taskQueue: string, deploymentName: string, buildId: string): Promise<void> {
  const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const worker = await createAgentWorker({
    connection,
    namespace: inject('temporalNamespace'),
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    implementations,
    deps: { world },
    blobDir: join(tmpdir(), 'agent-test-blobs'),
    toolTimeoutMs: 1_500,
    approvers: TEST_DIRECTORY,
    deployment: { deploymentName, buildId },
  });
  const running = worker.run();
  stops.push(async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
    await connection.close();
  });
}

/**
 * One build's worker as its own process, configured as an operator would (AGENT_DEPLOYMENT_NAME,
 * AGENT_BUILD_ID): the spawned worker copies this process's environment when it starts.
 */
async function spawnBuild(taskQueue: string, deploymentName: string, buildId: string): Promise<void> {
  process.env.AGENT_DEPLOYMENT_NAME = deploymentName;
  process.env.AGENT_BUILD_ID = buildId;
  try {
    await spawnWorker(taskQueue);
  } finally {
    delete process.env.AGENT_DEPLOYMENT_NAME;
    delete process.env.AGENT_BUILD_ID;
  }
}

/** What `temporal worker deployment set-current-version` does; the version exists once its worker has polled. */
async function setCurrent(client: Client, deploymentName: string, buildId: string): Promise<void> {
  await waitUntil(
    () =>
      client.workflowService.setWorkerDeploymentCurrentVersion({ namespace: client.options.namespace, deploymentName, buildId, identity: 'deploy-test' }).then(
        () => true,
        (err: unknown) => {
          // NotFound / FailedPrecondition until the build's first poll reaches the server.
          const code = (err as { code?: number }).code;
          if (code === 5 || code === 9) return false;
          throw err;
        },
      ),
    `build ${buildId} registered with deployment ${deploymentName}`,
  );
  // The server hands the new routing to the task queues after it answers; until they have it, a
  // run's workflow task does not hear that its build is no longer current. The test waits for
  // that where it matters, by what a run does (it rolls over), not by the deployment's
  // routingConfigUpdateState, which was seen to stay IN_PROGRESS past the test's patience on a
  // loaded host while tasks already had the new routing.
}

interface ExecutionRecord {
  runId: string;
  /** The build of every completed workflow task, in order. */
  taskBuilds: string[];
  failedTasks: number;
  acceptedUpdates: number;
  continuedAs?: string;
}

type HistoryEvent = Record<string, Record<string, unknown> | null | undefined>;

/** Every execution of a run, first to last, as its history records it. */
async function chain(client: Client, workflowId: string, firstRunId: string): Promise<ExecutionRecord[]> {
  const records: ExecutionRecord[] = [];
  let runId: string | undefined = firstRunId;
  while (runId) {
    const events = ((await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? []) as unknown as HistoryEvent[];
    const continued = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes;
    const record: ExecutionRecord = {
      runId,
      taskBuilds: events
        .map((e) => e.workflowTaskCompletedEventAttributes)
        .filter((a) => !!a)
        .map((a) => String((a.deploymentVersion as { buildId?: string } | undefined)?.buildId ?? '(unversioned)')),
      failedTasks: events.filter((e) => e.workflowTaskFailedEventAttributes).length,
      acceptedUpdates: events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length,
      ...(continued ? { continuedAs: String(continued.newExecutionRunId) } : {}),
    };
    records.push(record);
    runId = record.continuedAs;
  }
  return records;
}

/** The operators' command line (`npm run cli`), called in this process. */
async function cli(taskQueue: string, ...args: string[]): Promise<ScriptResult> {
  const result = await runCliHere(args, cliEnv(taskQueue));
  expect(result.code, result.stderr).toBe(0);
  return result;
}

function approve(handle: WorkflowHandle, awaiting: NonNullable<RunView['awaiting']>) {
  return handle.executeUpdate(approveUpdate, { args: [signDecision(keys.alice, handle.workflowId, awaiting, 'approve', 'ledger checked after the deploy')] });
}

describe('a deploy while approvals wait (Worker Versioning, dev server)', () => {
  const client = useClient();

  it('runs stay on build A until the engine rolls over, move to B with their state, and reissue once', async () => {
    const suffix = randomUUID().slice(0, 8);
    const deploymentName = `agents-deploy-${suffix}`;
    const taskQueue = uniqueTaskQueue('deploy');
    const agent = new AgentClient({ client: client(), taskQueue });

    await startBuild(taskQueue, deploymentName, 'build-a');
    await setCurrent(client(), deploymentName, 'build-a');
    const transfers = [uniqueCase('PX'), uniqueCase('PX')];
    const handles = [];
    for (const transferId of transfers) {
      await seedTransfer(world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
      handles.push(await startRun({ client: client(), taskQueue }, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } }));
    }
    const [approvedOnA, movedWaiting] = handles as [WorkflowHandle, WorkflowHandle];
    const firstRunIds = await Promise.all(handles.map(async (h) => (await h.describe()).runId));
    const waiting = await Promise.all(
      handles.map((h) =>
        waitUntil(async () => {
          const awaiting = (await h.query(stateQuery)).awaiting;
          return awaiting && awaiting.eligible.length > 0 ? awaiting : undefined;
        }, 'the reissue approval request and its approvers'),
      ),
    );
    expect(waiting.map((w) => w.tool)).toEqual(['reissue_transfer', 'reissue_transfer']);
    // status shows the build: pinned to A while it waits.
    const before = await agent.inspect(movedWaiting.workflowId);
    expect(before.build).toMatchObject({ deploymentName, buildId: 'build-a', behavior: 'pinned', pinnedByOperator: false });

    // The deploy: build B's worker process polls, and B becomes the deployment's current
    // version. A keeps running (in this process).
    await spawnBuild(taskQueue, deploymentName, 'build-b');
    await setCurrent(client(), deploymentName, 'build-b');

    // One run gets a note while it waits: a workflow task at a quiet point, where the engine sees
    // its build is no longer current and rolls over onto B, the request riding along. Its move
    // also shows the new routing has reached the queue's workflow tasks.
    await waitUntil(async () => {
      await movedWaiting.executeUpdate(addNoteUpdate, { args: [{ by: 'oncall', text: 'deploy in progress' }] });
      return (await movedWaiting.describe()).runId !== firstRunIds[1];
    }, 'the waiting run to roll over onto build B');

    // Approved after the deploy: the other run is still pinned to A, whose worker takes the decision.
    expect((await approve(approvedOnA, waiting[0] as NonNullable<RunView['awaiting']>)).decision).toBe('approved');
    const carried = await waitUntil(async () => (await movedWaiting.query(stateQuery)).awaiting, 'the carried request');
    expect(carried.requestId).toBe(waiting[1]?.requestId);
    const moved = await agent.inspect(movedWaiting.workflowId);
    expect(moved.build).toMatchObject({ deploymentName, buildId: 'build-b', behavior: 'pinned' });
    // The console's run page shows it, and `status` says so, as an operator reads it.
    expect(String(await reportFragment(moved, Date.now()))).toContain(`data-build="${deploymentName}.build-b"`);
    const status = await cli(taskQueue, 'status', movedWaiting.workflowId);
    expect(status.stdout).toMatch(new RegExp(`build\\s+${deploymentName}\\.build-b \\(pinned\\)`));
    expect((await approve(movedWaiting, carried)).decision).toBe('approved');

    const results = await Promise.all(handles.map((h) => h.result()));
    expect(results.map((r) => r.terminal.class)).toEqual(['resolved', 'resolved']);
    for (const [i, transferId] of transfers.entries()) {
      const effects = await world.effects({ key: transferId });
      expect(effects).toHaveLength(1); // each reissue reached the world once
      expect(effects[0]?.idempotencyKey).toBe(results[i]?.effects[0]?.key);
    }

    const chains = await Promise.all(handles.map((h, i) => chain(client(), h.workflowId, firstRunIds[i] as string)));
    // Nothing replayed non-deterministically, and no task failed for any other reason.
    expect(chains.flat().map((e) => e.failedTasks)).toEqual(chains.flat().map(() => 0));
    for (const executions of chains) {
      const first = executions[0] as ExecutionRecord;
      const last = executions.at(-1) as ExecutionRecord;
      // Every task of the first execution ran on A; it moved only through its own rollover.
      expect(new Set(first.taskBuilds)).toEqual(new Set(['build-a']));
      expect(executions.length).toBe(2);
      // A pinned run that rolled over on its own build would still be on A: it moved to the current one.
      expect(new Set(last.taskBuilds)).toEqual(new Set(['build-b']));
      expect(last.continuedAs).toBeUndefined();
    }
    // And each execution's history replays on the code here (what a new worker would do with it).
    for (const [i, executions] of chains.entries()) {
      for (const execution of executions) {
        const history = await client()
          .workflow.getHandle(handles[i]?.workflowId ?? '', execution.runId)
          .fetchHistory();
        await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, handles[i]?.workflowId);
      }
    }
    // The first run's decision was taken on A, before it moved; the second's on B, after.
    expect(chains[0]?.map((e) => e.acceptedUpdates)).toEqual([1, 0]);
    expect(chains[1]?.map((e) => e.acceptedUpdates)).toEqual([expect.any(Number), 1]);

    // list shows the build of every listed execution of these runs: A for the executions that
    // rolled over, B for the ones that finished.
    const rows = await waitUntil(async () => {
      const listed = (await agent.list({ domain: 'payments', limit: 200 })).filter((r) => transfers.includes(r.caseId ?? ''));
      return listed.filter((r) => r.status !== 'RUNNING').length === 4 && listed;
    }, 'every execution of the runs in the visibility store');
    const byStatus = rows.map((r) => `${r.status} ${r.build?.deploymentName}.${r.build?.buildId} ${r.build?.behavior}`).sort();
    expect(byStatus).toEqual([
      `COMPLETED ${deploymentName}.build-b pinned`,
      `COMPLETED ${deploymentName}.build-b pinned`,
      `CONTINUED_AS_NEW ${deploymentName}.build-a pinned`,
      `CONTINUED_AS_NEW ${deploymentName}.build-a pinned`,
    ]);
    const listed = await cli(taskQueue, 'list', '--domain', 'payments', '--limit', '200');
    const lines = listed.stdout.split('\n').filter((l) => transfers.some((t) => l.includes(t)));
    expect(listed.stdout.split('\n')[0]).toMatch(/STATUS\s+BUILD\s+NOTE/);
    expect(lines.filter((l) => /completed\s+build-b pinned/.test(l))).toHaveLength(2);
    expect(lines.filter((l) => /continued as new\s+build-a pinned/.test(l))).toHaveLength(2);
  });
});
