// A group's episodes, on the real dev server: the alert receiver must not attach a recurrence to
// the run that closed before it (nothing would be done about it), must not start a second run
// while the group's run is open (two runs on one incident), and must not start a new run for a
// late re-send of the episode that closed. Each receiver here is a fresh one where it matters, so
// what decides is the server's record (an open or closed run, when it closed), not a receiver's
// memory. Runs escalate on their first turn (a scripted model): only their ids and lifetimes matter.
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { createAlertReceiver, type AlertReceiver, type AlertRunStarter } from '../../client/alerts/receiver.js';
import { alertCaseId, groupIdOf } from '../../client/alerts/webhook.js';
import { alerts } from '../../domains/alerts/domain.js';
import { alertMapping } from '../../domains/alerts/mapping.js';
import { alertsImplementation } from '../../domains/alerts/tools.js';
import { WorldClient } from '../../domains/world/client.js';
import { startWorkerWith, uniqueTaskQueue, type StartedWorker } from '../support/temporal.js';

const TOKEN = randomBytes(24).toString('hex');
const mapping = alertMapping({ model: { adapter: 'scripted', replies: [{ type: 'escalate', reason: 'episode test' }] } });
const nowhere = 'http://127.0.0.1:9';

let worker: StartedWorker;
const receivers: AlertReceiver[] = [];
/** Every start a receiver made, with what the server made of it. */
const starts: { caseId: string; attached: boolean }[] = [];

beforeAll(async () => {
  worker = await startWorkerWith({
    taskQueue: uniqueTaskQueue('alerts-episodes'),
    workflowsPath: fileURLToPath(new URL('../../domains/alerts/workflows.ts', import.meta.url)),
    // The runs escalate before any tool: these addresses are never reached.
    activities: { implementations: [alertsImplementation], deps: { world: new WorldClient(nowhere), prometheusUrl: nowhere, alertmanagerUrl: nowhere } },
  });
}, 300_000);

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await worker?.close();
});

/** A receiver with no memory of any group, starting runs on `taskQueue` through the real client. */
async function freshReceiver(taskQueue = worker.taskQueue, map = mapping) {
  const agent = new AgentClient({ client: worker.client, taskQueue, domains: [alerts] });
  const starter: AlertRunStarter = {
    start: async (input) => {
      const started = await agent.start(input);
      starts.push({ caseId: input.caseId, attached: started.attached });
      return started;
    },
    note: (runId, text, options) => agent.note(runId, text, options),
    describe: (runId) => agent.describe(runId),
  };
  const receiver = createAlertReceiver({ agent: starter, auth: { bearer: TOKEN }, map });
  receivers.push(receiver);
  const { url } = await receiver.listen(0);
  return async (body: unknown) => {
    const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify(body) });
    return { status: res.status, ...((await res.json()) as { outcome: string; runId?: string }) };
  };
}

/** Alertmanager's body for the incident's group, with its firing alerts (name and startsAt each). */
function notification(incident: string, firing: { alertname: string; startsAt: string }[]) {
  const alertsOf = firing.map(({ alertname, startsAt }) => ({
    status: 'firing',
    labels: { alertname, case_id: incident, service: 'cache' },
    annotations: {},
    startsAt,
    fingerprint: createFingerprint(alertname),
  }));
  return {
    version: '4',
    groupKey: `{}:{case_id="${incident}"}`,
    status: 'firing',
    receiver: 'agent',
    groupLabels: { case_id: incident },
    commonLabels: { case_id: incident, service: 'cache' },
    commonAnnotations: {},
    alerts: alertsOf,
  };
}

/** Alertmanager's fingerprint is of the labels; the same alert name keeps the same one here. */
function createFingerprint(alertname: string): string {
  return Buffer.from(alertname).toString('hex').padEnd(16, '0').slice(0, 16);
}

const runIdOf = (incident: string, episode = 0) => `alerts-${alertCaseId(incident, groupIdOf(`{}:{case_id="${incident}"}`), episode)}`;

describe('episodes of an alert group', () => {
  it('a recurrence after the run closed starts the next episode; a late re-send of the closed one starts nothing', async () => {
    const incident = `INC-EP${randomUUID().slice(0, 6)}`;
    const firstFired = new Date().toISOString();
    const post = await freshReceiver();
    const first = await post(notification(incident, [{ alertname: 'ServiceMemoryHigh', startsAt: firstFired }]));
    expect([first.status, first.outcome, first.runId]).toEqual([200, 'started', runIdOf(incident)]);
    await worker.client.workflow.getHandle(runIdOf(incident)).result();
    const closeTime = (await worker.client.workflow.getHandle(runIdOf(incident)).describe()).closeTime;
    expect(closeTime).toBeDefined();

    // Alertmanager sends the closed episode's alert again (repeat_interval, an HA peer), to this
    // receiver and to one that remembers nothing: both attach to the closed run.
    const lateResend = notification(incident, [{ alertname: 'ServiceMemoryHigh', startsAt: firstFired }]);
    const late = [await post(lateResend), await (await freshReceiver())(lateResend)];
    expect(late.map((r) => [r.status, r.outcome, r.runId])).toEqual([
      [200, 'attached', runIdOf(incident)],
      [200, 'attached', runIdOf(incident)],
    ]);

    // The alert fires again after the run closed: a new alert instance, a new episode. It fires
    // now, not at a fixed offset: a start time still in the future could lie past the close of
    // the next episode's own (quick) run, and then the peer below would rightly start a third.
    const refired = new Date(Math.max((closeTime as Date).getTime() + 1, Date.now())).toISOString();
    const recurrence = notification(incident, [{ alertname: 'ServiceMemoryHigh', startsAt: refired }]);
    const second = await post(recurrence);
    expect([second.status, second.outcome, second.runId]).toEqual([200, 'started', runIdOf(incident, 1)]);
    // Another receiver with no memory finds the same episode: the server's record decides, not memory.
    const peer = await (await freshReceiver())(recurrence);
    expect([peer.status, peer.outcome, peer.runId]).toEqual([200, 'attached', runIdOf(incident, 1)]);

    // On the server: the first episode's run, the second's, and no third.
    const made = starts.filter((s) => s.caseId.startsWith(incident) && !s.attached).map((s) => s.caseId);
    expect(made).toEqual([runIdOf(incident).slice('alerts-'.length), runIdOf(incident, 1).slice('alerts-'.length)]);
    const described = await worker.client.workflow
      .getHandle(runIdOf(incident, 2))
      .describe()
      .then(
        () => 'exists',
        (err: unknown) => (err instanceof Error ? err.name : 'error'),
      );
    expect(described).toBe('WorkflowNotFoundError');
  });

  it('after the mapping changed its settings, a recurrence still starts the next episode; a late re-send of the closed one attaches', async () => {
    const incident = `INC-CH${randomUUID().slice(0, 6)}`;
    const firstFired = new Date().toISOString();
    const first = await (await freshReceiver())(notification(incident, [{ alertname: 'ServiceMemoryHigh', startsAt: firstFired }]));
    expect([first.status, first.outcome, first.runId]).toEqual([200, 'started', runIdOf(incident)]);
    await worker.client.workflow.getHandle(runIdOf(incident)).result();
    const closeTime = (await worker.client.workflow.getHandle(runIdOf(incident)).describe()).closeTime as Date;

    // The team changes the mapping's model: every later start of the group asks for other settings
    // than the closed episode's run was started with, which an attach to that run calls a conflict.
    const changed = alertMapping({ model: { adapter: 'scripted', replies: [{ type: 'escalate', reason: 'the mapping changed' }] } });
    const post = await freshReceiver(worker.taskQueue, changed);
    const late = await post(notification(incident, [{ alertname: 'ServiceMemoryHigh', startsAt: firstFired }]));
    expect([late.status, late.outcome, late.runId]).toEqual([200, 'attached', runIdOf(incident)]);
    const refired = new Date(Math.max(closeTime.getTime() + 1, Date.now())).toISOString();
    const recurrence = await post(notification(incident, [{ alertname: 'ServiceMemoryHigh', startsAt: refired }]));
    expect([recurrence.status, recurrence.outcome, recurrence.runId]).toEqual([200, 'started', runIdOf(incident, 1)]);
    // The new episode runs with the new settings: its scripted model's reason is the one it escalates with.
    const result = (await worker.client.workflow.getHandle(runIdOf(incident, 1)).result()) as { terminal: { detail: string } };
    expect(result.terminal.detail).toContain('the mapping changed');
  });

  it('a new alert joining the group while its run is open attaches to that run: never two runs on one incident', async () => {
    const incident = `INC-OP${randomUUID().slice(0, 6)}`;
    // No worker polls this queue, so the run stays open for as long as the test needs.
    const idle = uniqueTaskQueue('alerts-open');
    const post = await freshReceiver(idle);
    const t0 = new Date().toISOString();
    const opened = await post(notification(incident, [{ alertname: 'ServiceErrorRateHigh', startsAt: t0 }]));
    try {
      expect([opened.status, opened.outcome, opened.runId]).toEqual([200, 'started', runIdOf(incident)]);
      // A second alert of the incident fires later (after the run began): to this receiver and to a fresh one.
      const joined = notification(incident, [
        { alertname: 'ServiceErrorRateHigh', startsAt: t0 },
        { alertname: 'ServiceBadDeploy', startsAt: new Date(Date.now() + 1_000).toISOString() },
      ]);
      const replies = [await post(joined), await (await freshReceiver(idle))(joined)];
      expect(replies.map((r) => [r.status, r.outcome, r.runId])).toEqual([
        [200, 'attached', runIdOf(incident)],
        [200, 'attached', runIdOf(incident)],
      ]);
      expect(starts.filter((s) => s.caseId.startsWith(incident) && !s.attached)).toHaveLength(1);
    } finally {
      await worker.client.workflow.getHandle(runIdOf(incident)).terminate('episode test: the run was only needed open');
    }
  });
});
