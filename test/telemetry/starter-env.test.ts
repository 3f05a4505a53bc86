// The one configuration path (issue 34): a worker built the way examples/starter/worker.ts builds
// it, `createAgentWorker({ ...(await workerOptionsFromEnv()), ...its own options })`, obeys the
// variables the docs describe. With OPENAI_BASE_URL at a loopback chat-completions server and
// OTEL_EXPORTER_OTLP_ENDPOINT at a loopback OTLP receiver, a run asking for the `openai` model
// reaches that server and its trace reaches that receiver. The environment is set on the
// process, as a shell would set it, and put back afterwards.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { implementations } from '../../domains/implementations.js';
import { WorldClient } from '../../domains/world/client.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { createAgentWorker } from '../../worker/create-worker.js';
import { workerOptionsFromEnv } from '../../worker/env-options.js';
import { startFakeChatServer, toolCallsReply, type FakeChatServer } from '../model/fake-chat-server.js';
import { startRun, uniqueCase } from '../support/agent.js';
import { TEST_DIRECTORY } from '../support/keys.js';
import { connectClient, uniqueTaskQueue } from '../support/temporal.js';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';

type SentMessage = { role: string; content: string | null };

describe('a worker configured the way the starter configures it', () => {
  let chat: FakeChatServer;
  let receiver: OtlpReceiver;
  const taskQueue = uniqueTaskQueue('starter-env');
  const saved: Record<string, string | undefined> = {};
  const env: Record<string, string> = {};

  beforeAll(async () => {
    chat = await startFakeChatServer();
    receiver = await startOtlpReceiver();
    Object.assign(env, {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
      AGENT_TASK_QUEUE: taskQueue,
      OPENAI_BASE_URL: chat.baseUrl,
      OPENAI_MODEL: 'fake-model',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    });
    for (const [name, value] of Object.entries(env)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });

  afterAll(async () => {
    for (const name of Object.keys(env)) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    await chat?.close();
    await receiver?.close();
  });

  it('sends the model call to OPENAI_BASE_URL and the run trace to OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const world = new WorldClient(inject('worldUrl'));
    // As examples/starter/worker.ts does it: the environment's options first, the script's own after.
    const worker = await createAgentWorker({
      ...(await workerOptionsFromEnv()),
      workflowsPath: fileURLToPath(new URL('../../domains/workflows.ts', import.meta.url)),
      implementations,
      deps: { world },
      blobDir: join(tmpdir(), 'agent-test-blobs'),
      approvers: TEST_DIRECTORY,
    });
    expect(worker.options.taskQueue).toBe(taskQueue);
    const running = worker.run();
    const { client, close } = await connectClient();
    try {
      const transferId = uniqueCase('PX-env');
      await seedTransfer(world, transferId);
      chat.enqueue(toolCallsReply([{ name: 'read_ledger', arguments: { transferId } }]), (request) => {
        // Cite the id the runtime gave the ledger reading, as a model would.
        const messages = (request.body as { messages: SentMessage[] }).messages;
        const reading = messages.find((m) => m.role === 'tool' && (m.content ?? '').includes('"source":"ledger"'));
        const id = (JSON.parse(reading?.content ?? '{}') as { evidence_id?: string }).evidence_id ?? 'missing';
        return toolCallsReply([{ name: 'finish', arguments: { claim: { transferStatus: 'SETTLED' }, evidence: [id], summary: null } }]);
      });
      const handle = await startRun({ client, taskQueue }, { domain: 'payments', caseId: transferId, model: { adapter: 'openai' } });
      const result = await handle.result();
      expect(result.terminal.class).toBe('resolved');
      worker.shutdown();
      await running; // the tracing plugin flushes its spans as the worker stops

      // The model server the environment named was asked, with the model it named.
      const calls = chat.requests.filter((r) => r.path === '/v1/chat/completions');
      expect(calls).toHaveLength(2);
      expect((calls[0]?.body as { model?: string }).model).toBe('fake-model');

      // The receiver the environment named got the run's trace, model calls and tool calls in it.
      expect(receiver.refused).toEqual([]);
      const run = receiver.spans.find((s) => s.name === 'invoke_agent payments' && s.attributes['gen_ai.conversation.id'] === handle.workflowId);
      expect(run?.attributes['agent.terminal.class']).toBe('resolved');
      const trace = receiver.spans.filter((s) => s.traceId === run?.traceId);
      expect(trace.filter((s) => s.name.startsWith('chat ')).map((s) => s.attributes['gen_ai.provider.name'])).toEqual(['openai', 'openai']);
      expect(trace.some((s) => s.name === 'execute_tool read_ledger')).toBe(true);
    } finally {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      await close();
    }
  });
});
