// `npm run demo -- --alerts` (and `-- --kubernetes`): the alert loop end to end, printed as it
// happens. Debian's Prometheus and Alertmanager (provisioned when missing, monitoring/stack.ts)
// watch a system (demo/alert-systems.ts): the simulated world, or with `--kubernetes` a real
// control plane's Deployments through a metrics exporter of their state; the alert receiver
// listens; a worker serves the alerts domain over that system. Then a memory leak is injected
// into one incident's cache, and the person watching sees Prometheus fire, Alertmanager post, the
// run start, act, soak and resolve, with the UIs' URLs to look for themselves. Exit 0 only if the
// run resolved (and, on Kubernetes, the API's own history holds exactly one effect). Everything it
// starts it stops; the Temporal server is the demo's (`.temporal/dev.sqlite`, as `npm run demo`)
// unless the environment names one.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { AgentClient } from '../client/agent-client.js';
import { createAlertReceiver, type AlertGroup } from '../client/alerts/receiver.js';
import { alerts } from '../domains/alerts/domain.js';
import { alertMapping } from '../domains/alerts/mapping.js';
import { promQuery } from '../domains/alerts/prometheus-client.js';
import { ALERT_GROUP_BY } from '../domains/alerts/rules.js';
import { startAlertStack } from '../monitoring/stack.js';
import { freePort, isPortFree } from '../temporal-dev/ports.js';
import { stderrLog } from '../temporal-dev/log.js';
import { devDatabaseFile } from '../temporal-dev/paths.js';
import { useTemporal } from '../temporal-dev/target.js';
import { createAgentWorker } from '../worker/create-worker.js';
import { stateQuery } from '../workflows/messages.js';
import type { RunState } from '../workflows/controller/index.js';
import { startSystem, type SystemKind } from './alert-systems.js';

/** How long the demo waits for the loop before it says which step never came. */
const PATIENCE_MS = 180_000;

export async function runAlertsDemo(out: (line: string) => void, on: SystemKind = 'world'): Promise<number> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const cleanup = async () => {
    for (const stop of cleanups.reverse()) await stop().catch(() => undefined);
  };
  try {
    return await loop(out, on, cleanups);
  } finally {
    await cleanup();
  }
}

async function loop(out: (line: string) => void, on: SystemKind, cleanups: (() => Promise<unknown>)[]): Promise<number> {
  const t0 = Date.now();
  const at = () => `[${((Date.now() - t0) / 1000).toFixed(1).padStart(5)} s]`;
  const say = (line: string) => out(`${at()} ${line}`);
  const preferred = async (port: number) => ((await isPortFree(port)) ? port : freePort());

  const target = await useTemporal({ port: await preferred(7233), uiPort: await preferred(8233), dbFile: devDatabaseFile, log: stderrLog });
  cleanups.push(() => target.stop());
  const system = await startSystem(on, (line) => out(line));
  cleanups.push(() => system.stop());
  const scratch = mkdtempSync(join(tmpdir(), 'alerts-demo-'));
  cleanups.push(async () => rmSync(scratch, { recursive: true, force: true }));

  const connection = await Connection.connect(target.connectionOptions);
  cleanups.push(() => connection.close());
  const client = new Client({ connection, namespace: target.namespace });
  const taskQueue = `alerts-demo-${randomBytes(3).toString('hex')}`;
  const agent = new AgentClient({ client, taskQueue, domains: [alerts] });

  // The receiver listens before Alertmanager starts, so Alertmanager's first post finds it.
  const token = randomBytes(24).toString('hex');
  const started = new Map<string, string>();
  const mapping = alertMapping();
  const receiver = createAlertReceiver({
    agent,
    auth: { bearer: token },
    map: (group: AlertGroup) => {
      const names = [...new Set(group.alerts.map((a) => a.labels.alertname ?? '?'))].join(', ');
      say(`Alertmanager posted group ${JSON.stringify(group.groupLabels)}: ${group.status}, ${group.alerts.length} alert(s) (${names})`);
      return mapping(group);
    },
    log: (line) => {
      const m = /^(started|attached) (\S+) for group (\S+)$/.exec(line);
      if (m?.[1] === 'started') started.set(m[3] as string, m[2] as string);
      if (m) say(`receiver: ${m[1]} run ${m[2]}`);
      else say(`receiver: ${line}`);
    },
  });
  cleanups.push(() => receiver.close());
  const { url: receiverUrl } = await receiver.listen(0);

  out('Starting Prometheus and Alertmanager (installed from Debian when missing)...');
  const stack = await startAlertStack({
    targets: system.targets,
    rules: system.rules,
    webhook: { url: receiverUrl, auth: { bearer: token } },
    groupBy: ALERT_GROUP_BY,
    provision: { log: (line) => out(`  ${line}`) },
  });
  cleanups.push(() => stack.stop());

  const workerConnection = await NativeConnection.connect(target.connectionOptions);
  cleanups.push(() => workerConnection.close());
  const worker = await createAgentWorker({
    connection: workerConnection,
    namespace: target.namespace,
    taskQueue,
    workflowsPath: fileURLToPath(new URL('../domains/alerts/workflows.ts', import.meta.url)),
    implementations: [system.implementation],
    deps: system.deps({ prometheusUrl: stack.prometheus.url, alertmanagerUrl: stack.alertmanager.url }),
    blobDir: join(scratch, 'blobs'),
    toolTimeoutMs: system.toolTimeoutMs,
  });
  const running = worker.run();
  cleanups.push(async () => {
    worker.shutdown();
    await running;
  });

  out('');
  out(`Prometheus:    ${stack.prometheus.url}/alerts  (rules: ${system.rules.map((r) => r.alert).join(', ')})`);
  out(`Alertmanager:  ${stack.alertmanager.url}/#/alerts`);
  if (target.uiUrl) out(`Temporal UI:   ${target.uiUrl}/namespaces/${target.namespace}/workflows`);
  out(`Receiver:      ${receiverUrl} (bearer token, as Alertmanager's http_config sends it)`);
  out('');

  const incident = `INC-DEMO${randomUUID().slice(0, 6)}`;
  say(`injected a fault: ${await system.breakIncident(incident)}`);

  const firing = await waitFor(async () => {
    const answer = await promQuery(stack.prometheus.url, `ALERTS{alertstate="firing",case_id="${incident}"}`, { timeoutMs: 2_000 });
    return answer.samples.length ? answer.samples.map((s) => s.labels.alertname).join(', ') : undefined;
  }, 'Prometheus to fire');
  say(`Prometheus: ${firing} firing for ${incident}`);

  const runId = await waitFor(async () => [...started.values()].find((id) => id.includes(incident)), "Alertmanager's post to start a run");
  say(`run ${runId} started (see it in the Temporal UI)`);

  const handle = client.workflow.getHandle(runId);
  const printed = { transcript: 0, effects: new Set<string>() };
  const follow = async (): Promise<RunState | undefined> => {
    const { state } = await handle.query(stateQuery);
    for (const entry of state.transcript.slice(printed.transcript)) {
      const line = lineOf(entry, state);
      if (line) say(line);
    }
    printed.transcript = state.transcript.length;
    for (const e of state.effects) {
      if (e.status === 'applied' && !printed.effects.has(e.key)) {
        printed.effects.add(e.key);
        say(`effect ${e.tool} applied (key ${e.key})`);
      }
    }
    return state.terminal ? state : undefined;
  };
  const ended = await waitFor(follow, 'the run to end');
  const t = ended.terminal;
  say(`run ended ${t?.class} (${t?.reason}): ${t?.detail}`);
  const silences = (await (await fetch(`${stack.alertmanager.url}/api/v2/silences`)).json()) as { comment: string; status: { state: string } }[];
  const ours = silences.filter((s) => s.comment.includes(runId.slice('alerts-'.length)));
  say(`Alertmanager: the run's silence is ${ours.map((s) => s.status.state).join(', ') || 'absent'}`);
  // The system's own word on what was done, beside the run's: one effect, not two.
  const record = await system.record?.(incident);
  if (record) {
    say(`the API's own history of ${incident}'s cache (${record.effects} effect${record.effects === 1 ? '' : 's'}):`);
    for (const line of record.lines) out(`          ${line}`);
  }
  out('');
  return t?.class === 'resolved' && (!record || record.effects === 1) ? 0 : 1;
}

function lineOf(entry: RunState['transcript'][number], state: RunState): string | undefined {
  if (entry.kind === 'proposal') return `run t${entry.turn}: ${entry.summary}`;
  if (entry.kind === 'note') return `run t${entry.turn}: note from ${entry.by} (${entry.trusted ? 'signed' : 'untrusted text, never facts'})`;
  if (entry.kind === 'control') {
    if (entry.code === 'soaking') return `run: the probe holds; soaking: ${entry.message}`;
    return `run: ${entry.code}: ${entry.message}`;
  }
  const e = state.evidence.find((x) => x.id === entry.evidenceId);
  if (!e) return undefined;
  const facts = Object.entries(e.facts)
    .slice(0, 4)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
  return `run t${entry.turn}:   <- ${e.tool} ${e.status} ${facts}`;
}

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + PATIENCE_MS;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`gave up after ${PATIENCE_MS / 1000} s waiting for ${what}`);
}
