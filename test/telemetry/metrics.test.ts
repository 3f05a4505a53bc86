// The Prometheus endpoint of a worker process (the SDK's runtime telemetry) answers with the
// engine's counters after runs: runs by terminal class, refusals by reason code, approvals
// opened and closed. The same process exports its traces as the OTEL_* variables say.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { QUARANTINE_WORKFLOW_MODULE } from '../../worker/quarantine-install.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { signDecision } from '../../client/sign.js';
import { WorldClient } from '../../domains/world/client.js';
import { seedIncident, seedTransfer } from '../../domains/world/seeds.js';
import { BUNDLER_OPTIONS, quietBundlerLogger } from '../../worker/bundle.js';
import { freePort } from '../../temporal-dev/ports.js';
import { TRACING_WORKFLOW_MODULES } from '../../worker/telemetry.js';
import { approveUpdate, stateQuery } from '../../workflows/messages.js';
import { waitForRequest } from '../support/adversarial.js';
import { startRun, uniqueCase } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { connectClient, uniqueTaskQueue } from '../support/temporal.js';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';

const workflowsPath = fileURLToPath(new URL('../../domains/workflows.ts', import.meta.url));
const script = fileURLToPath(new URL('./metrics-worker.ts', import.meta.url));

describe('metrics: the Prometheus endpoint carries the engine counters', () => {
  const taskQueue = uniqueTaskQueue('metrics');
  let receiver: OtlpReceiver;
  let proc: WorkerProcess;
  let metricsUrl: string;
  let connected: Awaited<ReturnType<typeof connectClient>>;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    const bundle = await bundleWorkflowCode({
      workflowsPath,
      // The quarantine's interceptors too: a worker refuses a bundle without them (QuarantineMissingError).
      workflowInterceptorModules: [...TRACING_WORKFLOW_MODULES, QUARANTINE_WORKFLOW_MODULE],
      logger: quietBundlerLogger,
      ...BUNDLER_OPTIONS,
    });
    // In the run's scratch directory, which global setup removes: an 8 MB bundle a run would leave in /tmp.
    const bundlePath = join(inject('scratchDir'), `telemetry-bundle-${taskQueue}.js`);
    writeFileSync(bundlePath, bundle.code);
    proc = await startWorkerProcess({
      script,
      temporalAddress: inject('temporalAddress'),
      namespace: inject('temporalNamespace'),
      taskQueue,
      worldUrl: inject('worldUrl'),
      workflowBundlePath: bundlePath,
      // Telemetry turned on the way an operator would: in the worker's environment.
      env: {
        AGENT_METRICS_ADDRESS: `127.0.0.1:${port}`,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_SERVICE_NAME: 'metrics-test-worker',
      },
    });
    connected = await connectClient();
  });

  afterAll(async () => {
    await connected?.close();
    await proc?.stop();
    await receiver?.close();
  });

  it('after an approved payment and a run with a refused call, the counters say so', async () => {
    const world = new WorldClient(inject('worldUrl'));
    const on = { client: connected.client, taskQueue };

    const transferId = uniqueCase('PX');
    await seedTransfer(world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const paid = await startRun(on, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const awaiting = await waitForRequest(paid);
    await paid.executeUpdate(approveUpdate, { args: [signDecision(keys.alice, paid.workflowId, awaiting, 'approve', 'go')] });
    const paidResult = await paid.result();

    // A model that asks for a tool the domain does not have, then gives up.
    const caseId = uniqueCase('INC');
    await seedIncident(world, caseId);
    const refused = await startRun(on, {
      domain: 'incidents',
      caseId,
      model: {
        adapter: 'scripted',
        replies: [
          { type: 'call', calls: [{ tool: 'format_disk', args: {} }] },
          { type: 'finish', outcome: 'escalated', claim: {}, evidence: [] },
        ],
      },
    });
    const refusedResult = await refused.result();
    const codes = (await refused.query(stateQuery)).state.decisions.filter((d) => !d.accepted).map((d) => d.reason);
    expect(codes.length).toBeGreaterThan(0);

    const text = await scrapeUntil(
      metricsUrl,
      (t) => t.includes('agent_runs_finished') && t.split('\n').filter((l) => l.startsWith('agent_runs_finished')).length >= 2,
    );
    const value = (name: string, labels: Record<string, string>) => sample(text, name, labels);
    expect(value('agent_runs_finished', { domain: 'payments', terminal_class: paidResult.terminal.class })).toBe(1);
    expect(value('agent_runs_finished', { domain: 'incidents', terminal_class: refusedResult.terminal.class })).toBe(1);
    for (const code of new Set(codes)) expect(value('agent_refusals', { domain: 'incidents', code })).toBe(codes.filter((c) => c === code).length);
    expect(value('agent_approvals_opened', { domain: 'payments' })).toBe(1);
    expect(value('agent_approvals_closed', { domain: 'payments', decision: 'approved' })).toBe(1);
    // The SDK's own worker metrics are on the same endpoint.
    expect(text).toMatch(/^temporal_workflow_completed/m);

    // And the traces went where OTEL_EXPORTER_OTLP_ENDPOINT says, with the service name asked for.
    for (let i = 0; i < 200 && !receiver.spans.some((s) => s.attributes['gen_ai.conversation.id'] === refused.workflowId); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(receiver.spans.filter((s) => s.name.startsWith('invoke_agent ')).map((s) => s.attributes['gen_ai.conversation.id'])).toEqual(
      expect.arrayContaining([paid.workflowId, refused.workflowId]),
    );
  });
});

/** Scrapes until `ready` holds: the workflow's counters reach the runtime when its task completes. */
async function scrapeUntil(url: string, ready: (text: string) => boolean): Promise<string> {
  let text = '';
  for (let i = 0; i < 200; i++) {
    text = await fetch(url).then((r) => r.text());
    if (ready(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return text;
}

/** The value of the sample of `name` (with or without `_total`) whose labels include `labels`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)\{([^}]*)\}\s+(\S+)/.exec(line);
    if (!m || (m[1] !== name && m[1] !== `${name}_total`)) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}
