// Tracing as a plugin of its own: `plugins: [agentTracingPlugin(tracing), agentPlugin({...})]`
// on a team's own Worker.create, with a bundle made through both plugins. One run, and its trace
// arrives with the engine's spans in it.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NativeConnection, Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { implementations } from '../../domains/implementations.js';
import { WorldClient } from '../../domains/world/client.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { bundleWorkflows } from '../../worker/bundle.js';
import { agentPlugin } from '../../worker/plugin.js';
import { agentTracingPlugin } from '../../worker/telemetry-plugin.js';
import { createAgentTracing } from '../../worker/telemetry.js';
import { startRun, uniqueCase } from '../support/agent.js';
import { TEST_DIRECTORY } from '../support/keys.js';
import { connectClient, uniqueTaskQueue } from '../support/temporal.js';
import { startOtlpReceiver } from './otlp-receiver.js';

describe('tracing through the worker plugin', () => {
  it('a worker listing agentTracingPlugin(tracing) beside agentPlugin exports the run trace', async () => {
    const receiver = await startOtlpReceiver();
    const tracing = createAgentTracing({ spanProcessor: new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${receiver.url}/v1/traces` })) });
    const world = new WorldClient(inject('worldUrl'));
    const plugin = agentPlugin({
      implementations,
      deps: { world },
      blobDir: join(tmpdir(), 'agent-test-blobs'),
      toolTimeoutMs: 800,
      approvers: TEST_DIRECTORY,
    });
    const plugins = [agentTracingPlugin(tracing), plugin];
    const bundle = await bundleWorkflows(fileURLToPath(new URL('../../domains/workflows.ts', import.meta.url)), { plugins });
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const taskQueue = uniqueTaskQueue('plugin-traced');
    const worker = await Worker.create({ connection, namespace: inject('temporalNamespace'), taskQueue, workflowBundle: bundle, plugins });
    const running = worker.run();
    const { client, close } = await connectClient();
    try {
      const transferId = uniqueCase('PX');
      await seedTransfer(world, transferId);
      const handle = await startRun({ client, taskQueue }, { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
      const result = await handle.result();
      worker.shutdown();
      await running; // the plugin's run context flushes the spans as the worker stops
      const run = receiver.spans.find((s) => s.name === 'invoke_agent payments' && s.attributes['gen_ai.conversation.id'] === handle.workflowId);
      expect(run?.attributes['agent.terminal.class']).toBe(result.terminal.class);
      const trace = receiver.spans.filter((s) => s.traceId === run?.traceId);
      expect(trace.filter((s) => s.name === 'agent.turn')).toHaveLength(result.turns);
      expect(trace.filter((s) => s.name.startsWith('chat '))).toHaveLength(result.turns);
      expect(trace.filter((s) => s.name.startsWith('execute_tool ')).length).toBeGreaterThanOrEqual(result.toolCalls);
    } finally {
      await close();
      await connection.close();
      await tracing.shutdown();
      await receiver.close();
    }
  });
});
