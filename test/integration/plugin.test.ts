// The engine as a worker plugin on a team's own Worker.create (issue 24, item 2): their
// workflows module (bundled by the worker, so the plugin's bundler hook is what puts the engine's
// preloaded modules in), their own activity, their own workflow and activity interceptors, their
// own data converter (a payload codec) and identity, with the codec plugin's codec added after theirs.
// A payments run goes to its end through an AgentClient over the team's own Client, and through
// AgentClient.connect given the same data converter; a client without it cannot read the run.
// Real dev server, real world, real Worker in this process.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import { NativeConnection, Worker, type ActivityInterceptorsFactory } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { implementations } from '../../domains/implementations.js';
import { payments } from '../../domains/payments/domain.js';
import { syntheticImplementation } from '../../domains/synthetic/tools.js';
import { WorldClient } from '../../domains/world/client.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { createAgentWorker } from '../../worker/create-worker.js';
import { agentCodecPlugin } from '../../worker/codec-plugin.js';
import { ActivityNameTakenError, agentPlugin, type AgentPluginOptions } from '../../worker/plugin.js';
import { QUARANTINE_WORKFLOW_MODULE } from '../../worker/quarantine-install.js';
import { TaskQueueSharedError } from '../../worker/shared-queue.js';
import { agentMetricsPlugin } from '../../worker/telemetry-plugin.js';
import { METRICS_WORKFLOW_MODULES } from '../../worker/telemetry.js';
import { TEAM_HEADER } from '../fixtures/team-interceptors.js';
import { uniqueCase } from '../support/agent.js';
import { TEST_DIRECTORY } from '../support/keys.js';
import { uniqueTaskQueue } from '../support/temporal.js';

const teamWorkflows = fileURLToPath(new URL('../fixtures/team-workflows.ts', import.meta.url));
const teamInterceptors = fileURLToPath(new URL('../fixtures/team-interceptors.ts', import.meta.url));

const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null | undefined) => (b ? new TextDecoder().decode(b) : undefined);
const b64 = (b: Uint8Array | null | undefined) => Buffer.from(b ?? new Uint8Array()).toString('base64');

/**
 * A codec that wraps each payload in an envelope of its own encoding, the bytes masked so no
 * clear text is left: it stands for a team's codec (compression, their encryption) and for the
 * one the plugin adds. It unwraps only its own envelope, so codecs applied in the wrong order
 * leave a payload no converter reads.
 */
class EnvelopeCodec implements PayloadCodec {
  constructor(
    readonly encoding: string,
    private readonly mask: number,
  ) {}
  private flip(bytes: Uint8Array): Uint8Array {
    return bytes.map((x) => x ^ this.mask);
  }
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => ({
      metadata: { encoding: utf8(this.encoding) },
      data: this.flip(utf8(JSON.stringify({ m: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])), d: b64(p.data) }))),
    }));
  }
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => {
      if (text(p.metadata?.encoding) !== this.encoding) return p;
      const inner = JSON.parse(text(this.flip(p.data ?? new Uint8Array())) ?? '{}') as { m: Record<string, string>; d: string };
      return {
        metadata: Object.fromEntries(Object.entries(inner.m).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))])),
        data: new Uint8Array(Buffer.from(inner.d, 'base64')),
      };
    });
  }
}
const teamCodec = new EnvelopeCodec('binary/team-envelope', 0x5a);
const agentCodec = new EnvelopeCodec('binary/agent-envelope', 0x33);
/** What a client of these runs needs: the worker's codecs in the worker's order. */
const sameConverter = { payloadCodecs: [teamCodec, agentCodec] };

/** Every activity the team's activity interceptor saw, with the header their workflow interceptor set. */
const seen: Array<{ activity: string; workflowId: string | undefined; header: unknown }> = [];
const teamActivityInterceptor: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    execute(input, next) {
      const header = input.headers[TEAM_HEADER];
      seen.push({
        activity: ctx.info.activityType,
        workflowId: ctx.info.workflowExecution?.workflowId,
        header: header ? defaultPayloadConverter.fromPayload(header) : undefined,
      });
      return next(input);
    },
  },
});

function pluginOptions(impls: AgentPluginOptions['implementations'] = implementations): AgentPluginOptions {
  return {
    implementations: impls,
    deps: { world: new WorldClient(inject('worldUrl')) },
    blobDir: join(tmpdir(), 'agent-test-blobs'),
    toolTimeoutMs: 1_500,
    approvers: TEST_DIRECTORY,
  };
}

describe("the agent plugin on a team's own Worker.create", () => {
  let nativeConnection: NativeConnection;
  let connection: Connection;
  let teamClient: Client;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = uniqueTaskQueue('team');
  const world = () => new WorldClient(inject('worldUrl'));

  beforeAll(async () => {
    nativeConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
    connection = await Connection.connect({ address: inject('temporalAddress') });
    teamClient = new Client({ connection, namespace: inject('temporalNamespace'), dataConverter: sameConverter });
    worker = await Worker.create({
      connection: nativeConnection,
      namespace: inject('temporalNamespace'),
      taskQueue,
      identity: 'refunds-worker-1',
      workflowsPath: teamWorkflows,
      activities: { lookupCustomer: async (id: string) => `customer ${id}: Ada` },
      interceptors: { workflowModules: [teamInterceptors], activity: [teamActivityInterceptor] },
      dataConverter: { payloadCodecs: [teamCodec] },
      maxConcurrentActivityTaskExecutions: 20,
      plugins: [agentCodecPlugin([agentCodec]), agentPlugin(pluginOptions())],
    });
    running = worker.run();
  }, 120_000); // the worker bundles the team's workflows module: seconds on a loaded machine

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await nativeConnection?.close();
    await connection?.close();
  });

  it('runs a payments case to its end through an AgentClient over their Client; their activity, interceptors and codec all work', async () => {
    const transferId = uniqueCase('PX-team');
    await seedTransfer(world(), transferId);
    const agent = new AgentClient({ client: teamClient, taskQueue, domains: [payments] });
    const started = await agent.start({ domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const result = await started.handle.result();
    expect(result.terminal.class).toBe('resolved');
    expect((await agent.inspect(started.runId)).view?.state.evidence.map((e) => e.tool)).toContain('read_ledger');

    // Their own workflow and activity, on the same worker.
    expect(await teamClient.workflow.execute('teamLookup', { taskQueue, workflowId: uniqueCase('team-lookup'), args: ['C-7'] })).toBe('customer C-7: Ada');

    // Their activity interceptor wrapped the engine's activities, and each carried the header
    // their workflow interceptor set inside the agent workflow.
    const ofRun = seen.filter((s) => s.workflowId === started.runId);
    expect(ofRun.map((s) => s.activity)).toEqual(expect.arrayContaining(['propose', 'invokeTool', 'checkResultSeals']));
    expect(ofRun.every((s) => s.header === started.runId)).toBe(true);
    expect(seen.some((s) => s.activity === 'lookupCustomer' && typeof s.header === 'string')).toBe(true);

    // Their codec ran, then the plugin's: the server holds the plugin's envelope around theirs.
    const history = await new Client({ connection, namespace: inject('temporalNamespace') }).workflow.getHandle(started.runId).fetchHistory();
    const input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    expect(text(input?.metadata?.encoding)).toBe('binary/agent-envelope');
    const [inner] = await agentCodec.decode([input ?? {}]);
    expect(text(inner?.metadata?.encoding)).toBe('binary/team-envelope');
    expect(text(input?.data)).not.toContain(transferId);

    // Their identity, tagged with the domains served (what other agent workers' queue check reads).
    expect(worker.options.identity).toBe('refunds-worker-1 [agents: incidents,payments,synthetic]');

    // A replay worker given the plugin decodes the history with the same codecs; without it, it cannot.
    const replay = { workflowBundle: { codePath: inject('workflowBundlePath') }, dataConverter: { payloadCodecs: [teamCodec] } };
    await Worker.runReplayHistory({ ...replay, plugins: [agentCodecPlugin([agentCodec]), agentPlugin(pluginOptions())] }, history, started.runId);
    await expect(Worker.runReplayHistory(replay, history, started.runId)).rejects.toThrow(/encoding/i);
  });

  it("AgentClient.connect given the workers' data converter reads and runs; a client without it cannot read the result", async () => {
    const saved = { address: process.env.TEMPORAL_ADDRESS, namespace: process.env.TEMPORAL_NAMESPACE };
    process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
    process.env.TEMPORAL_NAMESPACE = inject('temporalNamespace');
    try {
      const agent = await AgentClient.connect({ domains: [payments], taskQueue, dataConverter: sameConverter });
      const transferId = uniqueCase('PX-conn');
      await seedTransfer(world(), transferId);
      try {
        const started = await agent.start({ domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
        expect((await started.handle.result()).terminal.class).toBe('resolved');
        const plain = await AgentClient.connect({ domains: [payments], taskQueue });
        try {
          await expect(plain.handle(started.runId).result()).rejects.toThrow(/encoding/i);
        } finally {
          await plain.close();
        }
      } finally {
        await agent.close();
      }
    } finally {
      for (const [key, value] of [
        ['TEMPORAL_ADDRESS', saved.address],
        ['TEMPORAL_NAMESPACE', saved.namespace],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });

  it("puts the engine's preloaded modules into the bundle the worker made: every run finds the first run's schema cache", async () => {
    const probe = () =>
      teamClient.workflow.execute<(reply: unknown) => Promise<{ builtAt: number; runStateCached: boolean }>>('workerScopedProbe', {
        taskQueue,
        workflowId: uniqueCase('probe'),
        args: [{}],
      });
    const first = await probe();
    const rest = await Promise.all([probe(), probe()]);
    expect(new Set([first, ...rest].map((r) => r.builtAt)).size).toBe(1);
    expect([first, ...rest].every((r) => r.runStateCached)).toBe(true);
  });

  it('refuses, at Worker.create, a queue polled by an agent worker of other domains, and activity names the engine owns', async () => {
    const bundle = { workflowBundle: { codePath: inject('workflowBundlePath') } };
    const base = { connection: nativeConnection, namespace: inject('temporalNamespace'), ...bundle };
    const shared = await Worker.create({ ...base, taskQueue, plugins: [agentPlugin(pluginOptions([syntheticImplementation]))] }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(shared).toBeInstanceOf(TaskQueueSharedError);
    expect((shared as Error).message).toContain('this worker serves domains synthetic');

    const clash = await Worker.create({
      ...base,
      taskQueue: uniqueTaskQueue('clash'),
      activities: { verify: async () => 'mine' },
      plugins: [agentPlugin(pluginOptions())],
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(clash).toBeInstanceOf(ActivityNameTakenError);
    expect((clash as Error).message).toContain("'verify'");
  });

  it("hands a bundler the engine's preloads and hook after the team's, and a telemetry plugin's workflow interceptors after theirs (for a prebuilt bundle)", () => {
    const theirHook = <C extends object>(config: C): C => ({ ...config, name: 'theirs' });
    const plugin = agentPlugin(pluginOptions());
    const given = {
      workflowsPath: teamWorkflows,
      preloadModules: ['their-module'],
      webpackConfigHook: theirHook,
      workflowInterceptorModules: [teamInterceptors],
    };
    // The order bundleWorkflows({ plugins: [agentMetricsPlugin(), plugin] }) applies them in.
    const options = plugin.configureBundler(agentMetricsPlugin().configureBundler(given));
    expect(options.preloadModules?.[0]).toBe('their-module');
    expect(options.preloadModules?.[1]).toMatch(/workflows[\\/]shared-modules\.js$/);
    expect(options.workflowInterceptorModules).toEqual([teamInterceptors, ...METRICS_WORKFLOW_MODULES, QUARANTINE_WORKFLOW_MODULE]);
    const swcRule = { use: { options: { jsc: { target: 'es2017' } } } };
    const config = options.webpackConfigHook?.({ module: { rules: [swcRule] } });
    expect(swcRule.use.options.jsc.target).toBe('es2022');
    expect(config?.name).toBe('theirs');
  });

  it('createAgentWorker passes other Worker.create options through untouched and defaults its task queue', async () => {
    const made = await createAgentWorker({
      ...pluginOptions([syntheticImplementation]),
      connection: nativeConnection,
      namespace: inject('temporalNamespace'),
      workflowBundle: { codePath: inject('workflowBundlePath') },
      workerOptions: { maxTaskQueueActivitiesPerSecond: 7, maxActivitiesPerSecond: 3, identity: 'ops-7' },
    });
    expect(made.options.maxTaskQueueActivitiesPerSecond).toBe(7);
    expect(made.options.maxActivitiesPerSecond).toBe(3);
    expect(made.options.identity).toBe('ops-7 [agents: synthetic]');
    expect(made.options.taskQueue).toBe(process.env.AGENT_TASK_QUEUE ?? 'agents-synthetic');
    expect(made.options.shutdownGraceTimeMs).toBe(5_000);
    await made.runUntil(Promise.resolve());
  });
});
