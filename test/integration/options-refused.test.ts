// Security that degrades silently is refused where it is configured (issue 42, item 6). An option
// a release removed (spend caps given to createAgentWorker instead of agentSpendPlugin) or a
// misspelt one is refused by the worker's and the client's constructors, naming what replaced it,
// instead of being ignored; and a worker given a prebuilt bundle without the quarantine's
// interceptors does not start unless the team says by name that it runs without them. Against
// the tests' real dev server: the worker that would have run is never created.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { ClientOptionError } from '../../client/agent-errors.js';
import { implementations } from '../../domains/implementations.js';
import { WorldClient } from '../../domains/world/client.js';
import { BUNDLER_OPTIONS, quietBundlerLogger } from '../../worker/bundle.js';
import { createAgentWorker, type AgentWorkerOptions } from '../../worker/create-worker.js';
import { agentPlugin, WorkerOptionError } from '../../worker/plugin.js';
import { QuarantineMissingError } from '../../worker/quarantine-install.js';
import { TEST_DIRECTORY } from '../support/keys.js';
import { uniqueTaskQueue } from '../support/temporal.js';

let connection: NativeConnection;
/** The engine's workflows bundled as Temporal's own bundler does it, without agentPlugin: no quarantine in it. */
let bare: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  bare = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('../../domains/workflows.ts', import.meta.url)),
    logger: quietBundlerLogger,
    ...BUNDLER_OPTIONS,
  });
}, 120_000); // bundling takes seconds on a loaded machine
afterAll(async () => {
  await connection?.close();
});

const pluginOptions = () => ({
  implementations,
  deps: { world: new WorldClient(inject('worldUrl')) },
  blobDir: join(tmpdir(), 'agent-test-blobs'),
  approvers: TEST_DIRECTORY,
});

function workerOptions(extra: object = {}): AgentWorkerOptions {
  return {
    ...pluginOptions(),
    connection,
    namespace: inject('temporalNamespace'),
    taskQueue: uniqueTaskQueue('options'),
    workflowBundle: { codePath: inject('workflowBundlePath') },
    ...extra,
  } as AgentWorkerOptions;
}

const refusal = (made: Promise<unknown>) =>
  made.then(
    () => undefined,
    (err: unknown) => err,
  );

describe('options a release removed, or never had', () => {
  it('spend caps given to createAgentWorker (an option a release moved to agentSpendPlugin) are refused, naming the replacement; no worker is made', async () => {
    const err = await refusal(createAgentWorker(workerOptions({ spend: { caps: { openai: 1 } } })));
    expect(WorkerOptionError.isInstance(err)).toBe(true);
    expect(err).toMatchObject({ where: 'createAgentWorker', option: 'spend', replacement: expect.stringContaining('agentSpendPlugin') });
    // Each option the release before removed, by name, and on the plugin too.
    for (const option of ['payloadCodecs', 'dataConverter', 'interceptors', 'telemetry']) {
      expect(() => agentPlugin({ ...pluginOptions(), [option]: {} } as never)).toThrow(new RegExp(`^agentPlugin: the option '${option}' was removed; use `));
    }
  });

  it("what a worker serves is 'runs' or 'models': any other word is refused, not taken as everything (tool calls on a model queue)", () => {
    const refused = (() => {
      try {
        return agentPlugin({ ...pluginOptions(), serves: 'model' } as never);
      } catch (err) {
        return err;
      }
    })();
    expect(WorkerOptionError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({ where: 'agentPlugin', option: 'serves', message: `agentPlugin: serves is 'runs' or 'models', not "model"` });
    expect(agentPlugin({ ...pluginOptions(), serves: 'models' }).name).toBe(agentPlugin(pluginOptions()).name);
  });

  it('a misspelt option is refused with the nearest name, at the worker and at the client', async () => {
    const worker = await refusal(createAgentWorker(workerOptions({ sharedQeue: 'warn' })));
    expect((worker as Error).message).toMatch(/no option named 'sharedQeue'; did you mean 'sharedQueue'\?/);

    const raw = await Connection.connect({ address: inject('temporalAddress') });
    try {
      const client = new Client({ connection: raw, namespace: inject('temporalNamespace') });
      const misspelt = (() => {
        try {
          return new AgentClient({ client, taskQueue: 'q', queryTimeout: 5_000 } as never);
        } catch (err) {
          return err;
        }
      })();
      expect(ClientOptionError.isInstance(misspelt)).toBe(true);
      expect(misspelt).toMatchObject({ where: 'AgentClient', option: 'queryTimeout', message: expect.stringContaining("did you mean 'queryTimeoutMs'?") });
      await expect(AgentClient.connect({ domain: 'payments' } as never)).rejects.toMatchObject({ where: 'AgentClient.connect', option: 'domain' });
      // What the client does take still works.
      expect(new AgentClient({ client, taskQueue: 'q', queryTimeoutMs: 5_000 }).taskQueue).toBe('q');
    } finally {
      await raw.close();
    }
  });
});

describe('a prebuilt bundle without the quarantine', () => {
  it('is refused at Worker.create (QuarantineMissingError); a team that names the risk (quarantine: off) gets its worker', async () => {
    const err = await refusal(createAgentWorker(workerOptions({ workflowBundle: { code: bare.code } })));
    expect(QuarantineMissingError.isInstance(err)).toBe(true);
    expect((err as Error).message).toContain("quarantine: 'off'");

    const accepted = await createAgentWorker(workerOptions({ workflowBundle: { code: bare.code }, quarantine: 'off' }));
    await accepted.runUntil(Promise.resolve());
    // The engine's own bundle (worker/bundle.ts) carries the quarantine: nothing to say.
    const engines = await createAgentWorker(workerOptions());
    await engines.runUntil(Promise.resolve());
  });
});
