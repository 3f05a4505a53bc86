// One trace per run, through the real OpenTelemetry SDK and an OTLP/HTTP receiver on loopback:
// a payments run that asks for approval, moves money, loses the reply and reads the effect back.
// Then its history replayed on a replay worker with the same tracing: no new span.
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.js';
import { signDecision } from '../../client/sign.js';
import { implementations } from '../../domains/implementations.js';
import { WorldClient } from '../../domains/world/client.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { agentWorkflow } from '../../domains/workflows.js';
import { BUNDLER_OPTIONS, quietBundlerLogger } from '../../worker/bundle.js';
import { createAgentTracing, keyDigest, type AgentTracing } from '../../worker/telemetry.js';
import { approveUpdate, stateQuery, type RunView } from '../../workflows/messages.js';
import type { RunResult } from '../../workflows/messages.js';
import { waitForRequest } from '../support/adversarial.js';
import { uniqueCase } from '../support/agent.js';
import { keys, TEST_DIRECTORY } from '../support/keys.js';
import { uniqueTaskQueue } from '../support/temporal.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

const workflowsPath = fileURLToPath(new URL('../../domains/workflows.ts', import.meta.url));
const failed = { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' } as const;

describe('traces: one trace per run, replay-safe', () => {
  let receiver: OtlpReceiver;
  let tracing: AgentTracing;
  let bundle: WorkflowBundleWithSourceMap;
  let connection: NativeConnection;
  let clientConnection: Connection;
  let client: Client;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = uniqueTaskQueue('traced');
  const world = () => new WorldClient(inject('worldUrl'));

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    tracing = createAgentTracing({ spanProcessor: new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` })) });
    bundle = await bundleWorkflowCode({
      workflowsPath,
      workflowInterceptorModules: [...tracing.workflowModules],
      logger: quietBundlerLogger,
      ...BUNDLER_OPTIONS,
    });
    connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    worker = await Worker.create({
      connection,
      namespace: inject('temporalNamespace'),
      taskQueue,
      workflowBundle: { code: bundle.code },
      activities: createActivities({
        implementations,
        deps: { world: world() },
        blobDir: join(tmpdir(), 'agent-test-blobs'),
        toolTimeoutMs: 800,
        approvers: TEST_DIRECTORY,
        // A team's adapter that knows its usage split: the domain's policy, counted as a provider would.
        models: {
          custom: {
            counted: async (input) => ({
              reply: implementations.find((i) => i.domain.name === input.domain)?.policy?.(input.context),
              tokens: 130,
              usage: { inputTokens: 100, outputTokens: 30 },
            }),
          },
        },
      }),
      interceptors: { activity: tracing.activityInterceptors },
      sinks: tracing.sinks,
    });
    running = worker.run();
    clientConnection = await Connection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection: clientConnection, namespace: inject('temporalNamespace'), interceptors: { workflow: [tracing.clientInterceptor] } });
  });

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await connection?.close();
    await clientConnection?.close();
    await tracing?.shutdown();
    await receiver?.close();
  });

  // The run: approval, a reissue whose reply is lost after it committed, a readback by key.
  let handle: WorkflowHandle<typeof agentWorkflow>;
  let result: RunResult;
  let view: RunView;
  let mine: ReceivedSpan[];

  it('a run with an approval, an effect and a readback is one trace with a span for each', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(world(), transferId, failed);
    await world().injectFault({ op: 'payments.reissue', key: transferId, mode: 'commit_then_500' });
    handle = await client.workflow.start(agentWorkflow, {
      taskQueue,
      workflowId: `payments-${transferId}`,
      args: [{ run: { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } } }],
    });
    const awaiting = await waitForRequest(handle);
    await handle.executeUpdate(approveUpdate, { args: [signDecision(keys.alice, handle.workflowId, awaiting, 'approve', 'go')] });
    result = await handle.result();
    view = await handle.query(stateQuery);
    await tracing.flush();
    mine = await spansOf(receiver, handle.workflowId);

    expect(receiver.refused).toEqual([]);
    expect(result.effects).toEqual([expect.objectContaining({ status: 'applied', settledBy: 'readback' })]);
    // One trace: the client's StartWorkflow, Temporal's spans and the engine's, all in it. (A
    // query or an Update from a client is that client's call, with a trace of its own.)
    const ofRun = mine.filter((s) => !/Query|Update/.test(s.name));
    expect(new Set(ofRun.map((s) => s.traceId)).size).toBe(1);
    const inTrace = receiver.spans.filter((s) => s.traceId === mine[0]?.traceId);
    const byName = (prefix: string) => inTrace.filter((s) => s.name.startsWith(prefix));
    expect(byName('StartWorkflow:')).toHaveLength(1);

    const run = byName('invoke_agent ');
    expect(run).toHaveLength(1);
    expect(run[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'payments',
      'gen_ai.conversation.id': handle.workflowId,
      'agent.terminal.class': result.terminal.class,
      'agent.terminal.reason': result.terminal.reason,
      'agent.turns': result.turns,
    });

    // A span per turn, numbered as the run counted them, each with the gate's decision on it.
    const turns = byName('agent.turn');
    expect(turns.map((s) => s.attributes['agent.turn.number']).sort()).toEqual(Array.from({ length: result.turns }, (_, i) => i + 1));
    const receipts = view.state.decisions;
    const gateEvents = turns.flatMap((t) => t.events.filter((e) => e.name === 'agent.gate'));
    expect(gateEvents.map((e) => [e.attributes['agent.turn.number'], e.attributes['agent.gate.decision'], e.attributes['agent.gate.reason']])).toEqual(
      receipts.map((d) => [d.turn, d.accepted ? 'accepted' : 'refused', d.reason]),
    );
    expect(gateEvents.some((e) => Array.isArray(e.attributes['agent.evidence.ids']) && (e.attributes['agent.evidence.ids'] as unknown[]).length > 0)).toBe(
      true,
    );

    // A chat span per model call the history holds, under the turn that made it.
    const scheduled = await scheduledActivities(handle);
    const chats = byName('chat ');
    expect(chats).toHaveLength(scheduled.filter((t) => t === 'propose').length);
    for (const chat of chats) {
      expect(chat.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'rules' });
      expect(typeof chat.attributes['agent.usage.tokens']).toBe('number');
      expect(ancestor(inTrace, chat, 'agent.turn')?.attributes['agent.turn.number']).toBe(chat.attributes['agent.turn.number']);
    }

    // An execute_tool span per tool call (the history's attempts), the effect's key only as a digest.
    const tools = byName('execute_tool ');
    expect(tools).toHaveLength(scheduled.filter((t) => t === 'invokeTool').length);
    const effect = view.state.effects[0];
    expect(effect).toBeDefined();
    const reissue = tools.filter((s) => s.attributes['agent.tool.kind'] === 'effect');
    expect(reissue).toHaveLength(1);
    expect(reissue[0]?.attributes['agent.idempotency_key.digest']).toBe(keyDigest(effect?.key ?? ''));

    // The approval wait: who was asked, what they decided.
    const approvals = byName('agent.approval');
    expect(approvals).toHaveLength(1);
    expect(approvals[0]?.attributes).toMatchObject({
      'agent.approval.request_id': awaiting.requestId,
      'agent.approval.decision': 'approved',
      'gen_ai.tool.name': 'reissue_transfer',
    });

    // The readback and its verdict.
    const readbacks = byName('agent.readback ');
    expect(readbacks).toHaveLength(1);
    expect(readbacks[0]?.attributes['agent.readback.verdict']).toBe('applied');
  });

  it('a model call whose adapter reports its usage carries gen_ai.usage input and output tokens', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(world(), transferId);
    const counted = await client.workflow.start(agentWorkflow, {
      taskQueue,
      workflowId: `payments-${transferId}`,
      args: [{ run: { domain: 'payments', caseId: transferId, model: { adapter: 'custom', name: 'counted' } } }],
    });
    const done = await counted.result();
    await tracing.flush();
    const spans = await spansOf(receiver, counted.workflowId);
    const chats = receiver.spans.filter((s) => s.traceId === spans[0]?.traceId && s.name.startsWith('chat '));
    expect(chats).toHaveLength(done.turns);
    for (const chat of chats) {
      expect(chat.attributes).toMatchObject({
        'gen_ai.provider.name': 'counted',
        'gen_ai.usage.input_tokens': 100,
        'gen_ai.usage.output_tokens': 30,
        'agent.usage.tokens': 130,
      });
    }
  });

  it('no span anywhere carries an idempotency key in clear', () => {
    const rawKeys = [...view.state.effects.map((e) => e.key), ...view.state.executions.flatMap((x) => (x.idempotencyKey ? [x.idempotencyKey] : []))];
    expect(rawKeys.length).toBeGreaterThan(0);
    const everything = JSON.stringify(receiver.spans.map((s) => [s.name, s.attributes, s.events]));
    for (const key of rawKeys) expect(everything).not.toContain(key);
  });

  it('replaying the run adds no span; a sink that ran during replay would have', async () => {
    const history = await handle.fetchHistory();
    const before = receiver.spans.length;
    await Worker.runReplayHistory({ workflowBundle: { code: bundle.code }, sinks: tracing.sinks }, history, handle.workflowId);
    await tracing.flush();
    expect(receiver.spans.length).toBe(before);

    // The control: the same replay with the exporter sink called during replay does emit the
    // workflow's spans again, so the assertion above is about the sink's replay rule.
    const eager = { exporter: { export: { ...tracing.sinks.exporter.export, callDuringReplay: true } } };
    await Worker.runReplayHistory({ workflowBundle: { code: bundle.code }, sinks: eager }, history, handle.workflowId);
    await tracing.flush();
    expect(receiver.spans.slice(before).some((s) => s.name.startsWith('invoke_agent '))).toBe(true);
  });

  it('every recorded history replays on a traced worker, and none of them emits a span', async () => {
    const dir = fileURLToPath(new URL('../replay/histories/', import.meta.url));
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(20);
    const before = receiver.spans.length;
    const histories = files.map((file) => ({
      workflowId:
        file
          .split('/')
          .at(-1)
          ?.replace(/\.json$/, '') ?? file,
      history: historyFromJSON(JSON.parse(readFileSync(`${dir}${file}`, 'utf8'))),
    }));
    const failures: string[] = [];
    for await (const r of Worker.runReplayHistories({ workflowBundle: { code: bundle.code }, sinks: tracing.sinks }, histories)) {
      if (r.error) failures.push(`${r.workflowId}: ${String(r.error)}`);
    }
    expect(failures).toEqual([]);
    await tracing.flush();
    expect(receiver.spans.length).toBe(before);
  });
});

/** The engine's and Temporal's spans of a workflow, once the run's own span has arrived. */
async function spansOf(receiver: OtlpReceiver, workflowId: string): Promise<ReceivedSpan[]> {
  for (let i = 0; i < 200; i++) {
    const run = receiver.spans.find((s) => s.attributes['gen_ai.conversation.id'] === workflowId);
    if (run) return receiver.spans.filter((s) => s.traceId === run.traceId || s.attributes.temporalWorkflowId === workflowId);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no invoke_agent span arrived for ${workflowId}`);
}

function ancestor(spans: ReceivedSpan[], span: ReceivedSpan, name: string): ReceivedSpan | undefined {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (let at = byId.get(span.parentSpanId); at; at = byId.get(at.parentSpanId)) if (at.name === name) return at;
  return undefined;
}

/** The activity type of every attempt the history records. */
async function scheduledActivities(handle: WorkflowHandle): Promise<string[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  const typeOf = new Map<string, string>();
  const out: string[] = [];
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) typeOf.set(String(e.eventId), s.activityType?.name ?? '');
    const started = e.activityTaskStartedEventAttributes;
    // Recorded once, at the end, with the number of the last attempt: each attempt ran.
    if (started) for (let a = 0; a < (started.attempt ?? 1); a++) out.push(typeOf.get(String(started.scheduledEventId)) ?? '');
  }
  return out;
}
