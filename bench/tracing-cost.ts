// What tracing costs: `npx tsx bench/tracing-cost.ts [--runs 10] [--turns 20] [--rounds 5]`.
// The same agent runs (synthetic domain, rules model, no-op tools) on two in-process workers:
// one as shipped, one with the engine's telemetry and Temporal's OpenTelemetry interceptors,
// exporting every span over OTLP/HTTP (JSON, batched) to a receiver on loopback that parses
// and drops them. Batches alternate between the two (the order rotates each round) and the
// median of the per-round wall-time ratios, traced ÷ untraced, is reported, with worker CPU
// per turn. Not part of `npm run bench`: that measures the engine against bare Temporal.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import { syntheticImplementation } from '../domains/synthetic/tools.js';
import { useTemporal } from '../temporal-dev/target.js';
import { BUNDLER_OPTIONS, quietBundlerLogger } from '../worker/bundle.js';
import { createAgentTracing } from '../worker/telemetry.js';
import { startSearchAttributes } from '../workflows/search-attributes.js';
import { agentWorkflow } from './agent-workflows.js';
import { agentWorkflowsPath, median, round, WORKER_OPTIONS } from './harness.js';

const { values } = parseArgs({ options: { runs: { type: 'string' }, turns: { type: 'string' }, rounds: { type: 'string' } } });
const runs = Number(values.runs ?? 10);
const turns = Number(values.turns ?? 20);
const rounds = Number(values.rounds ?? 5);
const log = (m: string) => process.stderr.write(`[tracing-cost] ${m}\n`);

Runtime.install({ logger: new DefaultLogger('WARN') });
let spansReceived = 0;
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans?: { scopeSpans?: { spans?: unknown[] }[] }[] };
    for (const rs of body.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spansReceived += ss.spans?.length ?? 0;
    res.writeHead(200).end('{}');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;

const target = await useTemporal({ headless: true, dynamicConfig: { 'history.transferProcessorMaxPollRPS': 1_000 }, log: (m) => log(`temporal-dev: ${m}`) });
const tracing = createAgentTracing({
  spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url }), { maxQueueSize: 100_000, scheduledDelayMillis: 200 }),
});
const connection = await Connection.connect(target.connectionOptions);
const client = new Client({ connection, namespace: target.namespace });
const workerConnection = await NativeConnection.connect(target.connectionOptions);
const activities = createActivities({ implementations: [syntheticImplementation], blobDir: join(tmpdir(), 'agent-bench-blobs') });
const stamp = Date.now().toString(36);
const queues = { off: `tracing-off-${stamp}`, on: `tracing-on-${stamp}` };
const bundle = (modules: readonly string[]) =>
  bundleWorkflowCode({ workflowsPath: agentWorkflowsPath, workflowInterceptorModules: [...modules], logger: quietBundlerLogger, ...BUNDLER_OPTIONS });
const workers = [
  await Worker.create({
    connection: workerConnection,
    namespace: target.namespace,
    taskQueue: queues.off,
    workflowBundle: await bundle([]),
    activities,
    ...WORKER_OPTIONS,
  }),
  await Worker.create({
    connection: workerConnection,
    namespace: target.namespace,
    taskQueue: queues.on,
    workflowBundle: await bundle(tracing.workflowModules),
    activities,
    interceptors: { activity: tracing.activityInterceptors },
    sinks: tracing.sinks,
    ...WORKER_OPTIONS,
  }),
];
const running = Promise.all(workers.map((w) => w.run()));

let serial = 0;
async function batchOf(variant: 'off' | 'on'): Promise<{ ms: number; cpuMsPerTurn: number }> {
  const cpu = process.cpuUsage();
  const started = Date.now();
  await Promise.all(
    Array.from({ length: runs }, async (_, i) => {
      const caseId = `${variant}-${stamp}-${serial++}-${i}`;
      const handle = await client.workflow.start(agentWorkflow, {
        taskQueue: queues[variant],
        workflowId: `synthetic-${caseId}`,
        args: [{ run: { domain: 'synthetic', caseId, model: { adapter: 'rules' }, budgets: { turns } } }],
        typedSearchAttributes: startSearchAttributes({ domain: 'synthetic', caseId }),
      });
      const result = await handle.result();
      if (result.turns !== turns || result.terminal.class !== 'resolved')
        throw new Error(`${caseId} ended ${result.terminal.class} after ${result.turns} turns`);
    }),
  );
  const used = process.cpuUsage(cpu);
  return { ms: Date.now() - started, cpuMsPerTurn: (used.user + used.system) / 1000 / (runs * turns) };
}

try {
  await batchOf('off'); // warm-up: bundles evaluated, caches filled
  await batchOf('on');
  const ratios: number[] = [];
  const cpu: Record<'off' | 'on', number[]> = { off: [], on: [] };
  for (let r = 0; r < rounds; r++) {
    const order: ('off' | 'on')[] = r % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
    const figures: Partial<Record<'off' | 'on', { ms: number; cpuMsPerTurn: number }>> = {};
    for (const v of order) figures[v] = await batchOf(v);
    ratios.push((figures.on?.ms ?? 0) / (figures.off?.ms ?? 1));
    cpu.off.push(figures.off?.cpuMsPerTurn ?? 0);
    cpu.on.push(figures.on?.cpuMsPerTurn ?? 0);
    log(`round ${r + 1}: off ${figures.off?.ms} ms, on ${figures.on?.ms} ms`);
  }
  await tracing.flush();
  process.stdout.write(
    `${JSON.stringify({ runs, turns, rounds, wallRatioMedian: round(median(ratios)), ratios: ratios.map((x) => round(x)), workerCpuMsPerTurn: { off: round(median(cpu.off)), on: round(median(cpu.on)) }, spansReceived }, null, 2)}\n`,
  );
} finally {
  for (const w of workers) w.shutdown();
  await running;
  await tracing.shutdown();
  await workerConnection.close();
  await connection.close();
  await target.stop();
  receiver.close();
}
