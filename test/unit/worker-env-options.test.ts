// The environment as worker options (worker/env-options.ts): an unset environment changes no
// default, each setting lands on the option it names, and a bad value is one WorkerEnvError
// naming its variable. Environments are given as objects; process.env is not touched.
import { describe, expect, it } from 'vitest';
import { AgentWorkerError } from '../../activities/worker-error.js';
import { workerOptionsFromEnv, WorkerEnvError } from '../../worker/env-options.js';
import { AGENT_METRICS_PLUGIN_NAME } from '../../worker/telemetry-plugin.js';

async function refusal(env: NodeJS.ProcessEnv): Promise<WorkerEnvError> {
  const err = await workerOptionsFromEnv(env).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!WorkerEnvError.isInstance(err)) throw new Error(`expected a WorkerEnvError, got ${String(err)}`);
  return err;
}

describe('workerOptionsFromEnv', () => {
  it('sets nothing for an empty environment, so a spread of it leaves every default in place', async () => {
    expect(await workerOptionsFromEnv({})).toEqual({ plugins: [] });
    expect(await workerOptionsFromEnv({ TOOL_TIMEOUT_MS: '  ', AGENT_TASK_QUEUE: '' })).toEqual({ plugins: [] });
  });

  it('puts each setting on the option it names', async () => {
    const options = await workerOptionsFromEnv({
      AGENT_TASK_QUEUE: 'orders-q',
      AGENT_SHARED_QUEUE: 'warn',
      TOOL_TIMEOUT_MS: '2500',
      STICKY_TIMEOUT_MS: '900',
      WORKFLOW_BUNDLE: '/bundles/agents.js',
      BLOB_DIR: '/var/blobs',
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      AGENT_METRICS_ADDRESS: '127.0.0.1:9464',
      AGENT_DEPLOYMENT_NAME: 'orders-agents',
      AGENT_BUILD_ID: 'b1',
    });
    expect(options).toMatchObject({
      taskQueue: 'orders-q',
      sharedQueue: 'warn',
      toolTimeoutMs: 2_500,
      stickyTimeoutMs: 900,
      workflowBundle: { codePath: '/bundles/agents.js' },
      blobDir: '/var/blobs',
      deployment: { deploymentName: 'orders-agents', buildId: 'b1' },
      runtime: { telemetryOptions: { metrics: { prometheus: { bindAddress: '127.0.0.1:9464' } } } },
    });
    expect(typeof options.models?.openai).toBe('function');
    // Metrics without a tracing endpoint: the engine's counters alone.
    expect(options.plugins.map((p) => p.name)).toEqual([AGENT_METRICS_PLUGIN_NAME]);
  });

  it('refuses a bad value with one error naming the variable', async () => {
    const timeout = await refusal({ TOOL_TIMEOUT_MS: '10s' });
    expect(timeout.variable).toBe('TOOL_TIMEOUT_MS');
    expect(timeout.message).toContain('"10s"');
    expect(AgentWorkerError.isInstance(timeout)).toBe(true);

    expect((await refusal({ AGENT_SHARED_QUEUE: 'share' })).variable).toBe('AGENT_SHARED_QUEUE');
    expect((await refusal({ AGENT_METRICS_ADDRESS: 'localhost' })).variable).toBe('AGENT_METRICS_ADDRESS');
    expect((await refusal({ WORKER_LOG_LEVEL: 'LOUD' })).variable).toBe('WORKER_LOG_LEVEL');
    expect((await refusal({ OPENAI_BASE_URL: 'not a url' })).variable).toBe('OPENAI_BASE_URL');
    expect((await refusal({ AGENT_MODELS: 'claude=anthropic:claude-x', AGENT_MODEL_CLAUDE_TIMEOUT_MS: '-1' })).variable).toBe('AGENT_MODEL_CLAUDE_TIMEOUT_MS');
    expect((await refusal({ AGENT_BUILD_ID: 'b1' })).variable).toBe('AGENT_BUILD_ID');
    expect((await refusal({ AGENT_PAYLOAD_KEYS: '/no/such/ring.json' })).variable).toBe('AGENT_PAYLOAD_KEYS');
  });
});
