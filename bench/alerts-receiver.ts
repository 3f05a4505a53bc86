// `npx tsx bench/alerts-receiver.ts [--rate 200] [--seconds 10] [--groups 200]`: the alert receiver
// under Alertmanager-like load. It posts `rate` authenticated notifications a second for `seconds`
// over `groups` alert groups (each group sent again and again, some copies at once, as repeats
// and HA peers do) at a real receiver backed by a real Temporal server (TEMPORAL_ADDRESS, else a
// dev server started here) and a worker whose runs end at once (a scripted escalation), then
// reports lost runs (a group with no run on the server), duplicated runs (a group started more
// than once) and the replies' statuses and latency. A report, not a test: nothing here is timed
// against a threshold.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import { AgentClient } from '../client/agent-client.js';
import { createAlertReceiver } from '../client/alerts/receiver.js';
import { alertCaseId, groupIdOf } from '../client/alerts/webhook.js';
import { alerts } from '../domains/alerts/domain.js';
import { alertMapping } from '../domains/alerts/mapping.js';
import { alertsImplementation } from '../domains/alerts/tools.js';
import { WorldClient } from '../domains/world/client.js';
import { stderrLog } from '../temporal-dev/log.js';
import { useTemporal } from '../temporal-dev/target.js';

const { values } = parseArgs({
  options: { rate: { type: 'string', default: '200' }, seconds: { type: 'string', default: '10' }, groups: { type: 'string', default: '200' } },
});
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const groupCount = Number(values.groups);
const token = randomBytes(24).toString('hex');
const tag = randomBytes(3).toString('hex');
const scratch = mkdtempSync(join(tmpdir(), 'alerts-bench-'));

const temporal = await useTemporal({ headless: true, dbFile: join(scratch, 'temporal.sqlite'), log: stderrLog });
const connection = await Connection.connect({ address: temporal.address });
const client = new Client({ connection, namespace: temporal.namespace });
const taskQueue = `alerts-bench-${tag}`;
const nativeConnection = await NativeConnection.connect({ address: temporal.address });
const worker = await Worker.create({
  connection: nativeConnection,
  namespace: temporal.namespace,
  taskQueue,
  workflowsPath: fileURLToPath(new URL('../domains/alerts/workflows.ts', import.meta.url)),
  // Runs escalate on their first turn: no tool is called, so these deps are never reached.
  activities: createActivities({
    implementations: [alertsImplementation],
    deps: { world: new WorldClient('http://127.0.0.1:9'), prometheusUrl: 'http://127.0.0.1:9', alertmanagerUrl: 'http://127.0.0.1:9' },
    blobDir: join(scratch, 'blobs'),
  }),
});
const running = worker.run();
const agent = new AgentClient({ client, taskQueue, domains: [alerts] });
let noteFailures = 0;
const receiver = createAlertReceiver({
  agent,
  auth: { bearer: token },
  map: alertMapping({ model: { adapter: 'scripted', replies: [{ type: 'escalate', reason: 'bench' }] } }),
  log: (line) => {
    if (line.startsWith('could not add')) noteFailures++;
  },
});
const { url } = await receiver.listen(0);

const incidents = Array.from({ length: groupCount }, (_, i) => `INC-B${tag}-${i}`);
const body = (incident: string) =>
  JSON.stringify({
    version: '4',
    groupKey: `{}:{case_id="${incident}"}`,
    status: 'firing',
    receiver: 'agent',
    groupLabels: { case_id: incident },
    commonLabels: { alertname: 'ServiceMemoryHigh', case_id: incident },
    commonAnnotations: {},
    alerts: [{ status: 'firing', labels: { alertname: 'ServiceMemoryHigh', case_id: incident }, annotations: {}, startsAt: new Date().toISOString() }],
  });

const statuses = new Map<number, number>();
const outcomes = new Map<string, number>();
const startedPerGroup = new Map<string, number>();
const latencies: number[] = [];
const inflight = new Set<Promise<void>>();
const total = rate * seconds;
const began = Date.now();
process.stderr.write(`posting ${total} notifications at ${rate}/s over ${groupCount} groups to ${url}\n`);
for (let i = 0; i < total; i++) {
  // Pace by the clock, not by replies: Alertmanager does not wait for one group to send another.
  const due = began + (i * 1000) / rate;
  const wait = due - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const incident = incidents[i % groupCount] as string;
  const sent = Date.now();
  const work = fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body(incident) })
    .then(async (res) => {
      latencies.push(Date.now() - sent);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const reply = (await res.json()) as { outcome: string };
      outcomes.set(reply.outcome, (outcomes.get(reply.outcome) ?? 0) + 1);
      if (reply.outcome === 'started') startedPerGroup.set(incident, (startedPerGroup.get(incident) ?? 0) + 1);
    })
    .catch(() => {
      statuses.set(0, (statuses.get(0) ?? 0) + 1);
    });
  inflight.add(work);
  void work.finally(() => inflight.delete(work));
}
await Promise.all([...inflight]);
const sendSeconds = (Date.now() - began) / 1000;

// Lost: a group whose run the server does not have. Duplicated: a group started more than once.
let lost = 0;
for (const incident of incidents) {
  const runId = `alerts-${alertCaseId(incident, groupIdOf(`{}:{case_id="${incident}"}`))}`;
  try {
    await client.workflow.getHandle(runId).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) lost++;
    else throw err;
  }
}
const duplicated = [...startedPerGroup.values()].filter((n) => n > 1).length;
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
const report = {
  notifications: total,
  offeredRate: rate,
  achievedRate: Number((total / sendSeconds).toFixed(1)),
  groups: groupCount,
  statuses: Object.fromEntries(statuses),
  outcomes: Object.fromEntries(outcomes),
  runsStarted: [...startedPerGroup.values()].reduce((a, b) => a + b, 0),
  lostRuns: lost,
  duplicatedRuns: duplicated,
  noteFailures,
  latencyMs: { p50: pct(50), p95: pct(95), p99: pct(99), max: latencies.at(-1) ?? 0 },
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);

await receiver.close();
worker.shutdown();
await running;
await nativeConnection.close();
await connection.close();
await temporal.stop();
rmSync(scratch, { recursive: true, force: true });
