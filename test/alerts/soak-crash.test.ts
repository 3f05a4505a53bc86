// The alerts run survives losing its worker in the middle of the soak window: the window is a
// Temporal timer on the server, not a sleep in a process. The worker is an OS process of its own
// (domains/alerts/worker.ts), SIGKILLed by its pid once the run's record says it is soaking, and a
// fresh process takes over. Judged on the run's own record (the soak's start and end, the
// terminal's time, the history), the server's executions and the world's call log.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { createAlertReceiver, type AlertReceiver, type AlertRunStarter } from '../../client/alerts/receiver.js';
import { alerts } from '../../domains/alerts/domain.js';
import { alertMapping } from '../../domains/alerts/mapping.js';
import { ALERT_GROUP_BY, worldAlertRules } from '../../domains/alerts/rules.js';
import { WorldClient } from '../../domains/world/client.js';
import { startWorld, type RunningWorld } from '../../domains/world/process.js';
import { startAlertStack, type AlertStack } from '../../monitoring/stack.js';
import { suiteBundle } from '../support/bundles.js';
import { silencesByKey } from '../../domains/alerts/alertmanager-client.js';
import { silenceKeyOf } from '../../domains/alerts/domain.js';
import { AGENT_WORKFLOW_TYPE } from '../../workflows/agent-workflow-type.js';
import { stateQuery, type RunResult } from '../../workflows/messages.js';
import type { RunInput } from '../../workflows/run-input.js';
import { connectClient, uniqueTaskQueue } from '../support/temporal.js';
import { historyOf, resetTo, workflowTaskCompletions } from '../support/temporal-ops.js';
import { waitUntil } from '../support/wait.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';
import { claimOf } from '../support/phase.js';

const TOKEN = randomBytes(24).toString('hex');
const ALERTS_WORKER = fileURLToPath(new URL('../../domains/alerts/worker.ts', import.meta.url));

let world: RunningWorld;
let worldClient: WorldClient;
let stack: AlertStack;
let receiver: AlertReceiver;
let connection: Awaited<ReturnType<typeof connectClient>>;
let agent: AgentClient;
let scratch: string;
let bundlePath: string;
const taskQueue = uniqueTaskQueue('alerts-crash');
/** Every start the receiver made, with what the server made of it and the input it gave. */
const starts: { caseId: string; runId: string; attached: boolean; input: RunInput }[] = [];
const workers = new Set<WorkerProcess>();

const recordingAgent: AlertRunStarter = {
  start: async (input) => {
    const started = await agent.start(input);
    starts.push({ caseId: input.caseId, runId: started.runId, attached: started.attached, input });
    return started;
  },
  note: (runId, text, options) => agent.note(runId, text, options),
  describe: (runId) => agent.describe(runId),
};

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'alerts-crash-'));
  const [startedWorld, bundle] = await Promise.all([startWorld(), suiteBundle(fileURLToPath(new URL('../../domains/alerts/workflows.ts', import.meta.url)))]);
  world = startedWorld;
  worldClient = new WorldClient(world.url);
  // A prebuilt bundle, so the second worker is up in a second rather than after a re-bundle.
  bundlePath = bundle.codePath;
  connection = await connectClient();
  agent = new AgentClient({ client: connection.client, taskQueue, domains: [alerts] });
  receiver = createAlertReceiver({ auth: { bearer: TOKEN }, map: alertMapping(), agent: recordingAgent });
  const receiverUrl = (await receiver.listen(0)).url;
  stack = await startAlertStack({
    targets: [new URL(world.url).host],
    rules: worldAlertRules,
    webhook: { url: receiverUrl, auth: { bearer: TOKEN } },
    groupBy: ALERT_GROUP_BY,
    provision: { log: (line) => process.stderr.write(`[alerts-crash-test] ${line}\n`) },
  });
}, 600_000);

afterAll(async () => {
  await Promise.all([...workers].map((w) => w.stop()));
  await receiver?.close();
  await stack?.stop();
  await world?.stop();
  await connection?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** An alerts worker in its own process, with the world, Prometheus and Alertmanager of this file. */
async function spawnAlertsWorker(): Promise<WorkerProcess> {
  const worker = await startWorkerProcess({
    script: ALERTS_WORKER,
    temporalAddress: inject('temporalAddress'),
    namespace: inject('temporalNamespace'),
    taskQueue,
    worldUrl: world.url,
    workflowBundlePath: bundlePath,
    toolTimeoutMs: 5_000,
    env: { PROMETHEUS_URL: stack.prometheus.url, ALERTMANAGER_URL: stack.alertmanager.url },
  });
  workers.add(worker);
  return worker;
}

describe('a worker SIGKILLed during the soak window', () => {
  it('changes nothing: the run resolves once, after the window, with one remediation in the world', async () => {
    const incidentId = `INC-SK${randomUUID().slice(0, 6)}`;
    const first = await spawnAlertsWorker();
    await worldClient.seedIncident({ caseId: incidentId, faulty: { service: 'cache', fault: 'memory' } });

    // Prometheus fires, Alertmanager posts, the receiver starts the group's run.
    const started = await waitUntil(() => starts.find((s) => s.caseId.startsWith(incidentId) && !s.attached), 'the webhook to start the run');
    const handle = connection.client.workflow.getHandle(started.runId);

    // The run's own record says it is soaking: the probe held and the window is set.
    const soak = await waitUntil(async () => {
      const view = await handle.query(stateQuery);
      if (view.state.terminal) throw new Error(`the run ended (${view.state.terminal.class}) before it soaked`);
      return claimOf(view.state)?.soak;
    }, 'the run to start its soak');
    const soakingReceipt = (await handle.query(stateQuery)).state.transcript.find((t) => t.kind === 'control' && t.code === 'soaking');
    expect(soakingReceipt).toBeDefined();

    await first.kill();
    // Killed inside the window: the run is still open on the server, with nobody to serve it.
    expect((await handle.describe()).status.name).toBe('RUNNING');
    const second = await spawnAlertsWorker();
    const result = await handle.result();
    workers.delete(second);
    await second.stop();

    // Resolved after the whole window, by the run's own clock, quiet throughout.
    expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    expect(result.terminal.detail).toMatch(/held again after a soak/);
    expect(soak.until - soak.from).toBe(alerts.soak?.windowMs);
    expect(result.terminal.at).toBeGreaterThanOrEqual(soak.until);

    // Once: one execution of the workflow id, one completion in its history, one timer for the window.
    const executions: string[] = [];
    for await (const execution of connection.client.workflow.list({ query: `WorkflowId = '${started.runId}'` })) executions.push(execution.runId);
    expect(executions).toHaveLength(1);
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.workflowExecutionCompletedEventAttributes)).toHaveLength(1);
    expect(events.filter((e) => e.timerFiredEventAttributes)).toHaveLength(1);
    // The probe over the window ran on the second worker: the first was gone when the timer fired.
    const activityStarts = events.filter((e) => e.activityTaskStartedEventAttributes);
    expect(activityStarts.at(-1)?.activityTaskStartedEventAttributes?.identity).toContain(String(second.pid));
    expect(activityStarts.some((e) => e.activityTaskStartedEventAttributes?.identity?.includes(String(first.pid)))).toBe(true);

    // The world: one remediation requested and stored, the cache restarted once.
    const remediations = (await worldClient.calls({ key: incidentId })).filter((c) => c.op === 'incidents.restart' || c.op === 'incidents.revert');
    expect(remediations).toHaveLength(1);
    expect((await worldClient.effects({ key: incidentId })).map((e) => [e.kind, e.details.service])).toEqual([['restart', 'cache']]);
    // And the receiver started exactly one run for the group, however often Alertmanager sent it.
    expect(starts.filter((s) => s.caseId.startsWith(incidentId) && !s.attached)).toHaveLength(1);
  });
});

describe('the case started again in the soak window (TerminateExisting)', () => {
  it("the new execution finds the case's own restart, restarts nothing, lifts the silence it took and resolves; nothing is left silenced", async () => {
    const incidentId = `INC-TE${randomUUID().slice(0, 6)}`;
    const first = await spawnAlertsWorker();
    let second: WorkerProcess | undefined;
    try {
      await worldClient.seedIncident({ caseId: incidentId, faulty: { service: 'cache', fault: 'memory' } });
      const started = await waitUntil(() => starts.find((s) => s.caseId.startsWith(incidentId) && !s.attached), 'the webhook to start the run');
      const handle = connection.client.workflow.getHandle(started.runId);
      await waitUntil(async () => {
        const view = await handle.query(stateQuery);
        if (view.state.terminal) throw new Error(`the run ended (${view.state.terminal.class}) before it soaked`);
        return claimOf(view.state)?.soak;
      }, 'the run to start its soak');
      // Its worker goes, so the soaking execution stays open however long what follows takes.
      await first.kill();
      const soaking = connection.client.workflow.getHandle(started.runId, (await handle.describe()).runId);

      // Someone starts the case again, terminating the execution that was soaking.
      const again = await connection.client.workflow.start(AGENT_WORKFLOW_TYPE, {
        taskQueue,
        workflowId: started.runId,
        args: [{ run: started.input }],
        workflowIdConflictPolicy: 'TERMINATE_EXISTING',
      });
      second = await spawnAlertsWorker();
      const result = (await again.result()) as RunResult;

      // The world: still the one restart of the cache, made by the first execution.
      const remediations = (await worldClient.calls({ key: incidentId })).filter((c) => c.op === 'incidents.restart' || c.op === 'incidents.revert');
      expect(remediations).toHaveLength(1);
      // Alertmanager: every silence the case took is expired, the new execution's too.
      const silences = await silencesByKey(stack.alertmanager.url, silenceKeyOf(started.caseId), { timeoutMs: 60_000 });
      expect(silences.length).toBeGreaterThanOrEqual(1);
      expect(silences.map((x) => x.status.state).filter((state) => state !== 'expired')).toEqual([]);
      // The new execution ended on the case's own remediation, which the probe confirmed.
      expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'already_done' });
      expect(result.terminal.detail).toMatch(/cache already remediated by an earlier run: restart \S+ under key alerts\/restart_service\//);
      expect(result.effects.map((e) => e.tool).filter((t) => t === 'restart_service' || t === 'revert_deploy')).toEqual([]);
      expect((await soaking.describe()).status.name).toBe('TERMINATED');
    } finally {
      for (const w of [first, second]) {
        if (!w) continue;
        workers.delete(w);
        await w.stop();
      }
    }
  });
});

describe('the run reset to its first task in the soak window (`temporal workflow reset`)', () => {
  it("the reset execution finds the case's own restart, restarts nothing, lifts the silence it took and resolves; nothing is left silenced", async () => {
    const incidentId = `INC-RS${randomUUID().slice(0, 6)}`;
    const first = await spawnAlertsWorker();
    let second: WorkerProcess | undefined;
    try {
      await worldClient.seedIncident({ caseId: incidentId, faulty: { service: 'cache', fault: 'memory' } });
      const started = await waitUntil(() => starts.find((s) => s.caseId.startsWith(incidentId) && !s.attached), 'the webhook to start the run');
      const handle = connection.client.workflow.getHandle(started.runId);
      await waitUntil(async () => {
        const view = await handle.query(stateQuery);
        if (view.state.terminal) throw new Error(`the run ended (${view.state.terminal.class}) before it soaked`);
        return claimOf(view.state)?.soak;
      }, 'the run to start its soak');
      // Its worker goes, so the soaking execution is still open when the operator resets it.
      await first.kill();
      const soakingRunId = (await handle.describe()).runId;
      const [firstTask] = workflowTaskCompletions(await historyOf(connection.client, started.runId, soakingRunId));
      if (firstTask === undefined) throw new Error('the soaking execution has no completed workflow task');
      const resetRunId = await resetTo(connection.client, started.runId, firstTask, soakingRunId);
      second = await spawnAlertsWorker();
      const result = (await connection.client.workflow.getHandle(started.runId, resetRunId).result()) as RunResult;

      // The world: still the one restart of the cache, made by the execution that was reset.
      const remediations = (await worldClient.calls({ key: incidentId })).filter((c) => c.op === 'incidents.restart' || c.op === 'incidents.revert');
      expect(remediations).toHaveLength(1);
      // Alertmanager: every silence the case took is expired, the reset execution's too.
      const silences = await silencesByKey(stack.alertmanager.url, silenceKeyOf(started.caseId), { timeoutMs: 60_000 });
      expect(silences.length).toBeGreaterThanOrEqual(1);
      expect(silences.map((x) => x.status.state).filter((state) => state !== 'expired')).toEqual([]);
      expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'already_done' });
      expect(result.effects.map((e) => e.tool).filter((t) => t === 'restart_service' || t === 'revert_deploy')).toEqual([]);
      expect((await connection.client.workflow.getHandle(started.runId, soakingRunId).describe()).status.name).toBe('TERMINATED');
    } finally {
      for (const w of [first, second]) {
        if (!w) continue;
        workers.delete(w);
        await w.stop();
      }
    }
  });
});
