// Every activity the agent workflow calls, built from what the worker was given: the domains'
// implementations, your dependencies for them, the model adapters and the approver directory.
import { DEFAULT_READBACK_ATTEMPTS, DEFAULT_TOOL_TIMEOUT_MS } from '../workflows/policy.js';
import { ApproverDirectory } from '../workflows/trust/directory.js';
import type { KeyRing } from '../worker/payload-keys.js';
import { continuationActivities } from './continuation.js';
import { registry, type AnyImplementation } from './implement.js';
import { modelActivities, type ModelAdapters } from './model/index.js';
import { pingActivities } from './ping.js';
import { probeActivities } from './probes.js';
import { resolveResultKeys } from './result-keys.js';
import { sealActivities } from './result-seal.js';
import { toolActivities } from './tools.js';
import { usedStatementActivities } from './used-statements.js';

export interface ActivityDeps {
  /** One implementation per domain the worker serves (see implement()). */
  implementations: readonly AnyImplementation[];
  /** Handed to every tool, readback and probe as `ctx.deps`. */
  deps?: unknown;
  /** Where full tool outputs go when they exceed a contract's cap. */
  blobDir: string;
  toolTimeoutMs?: number;
  readbackAttempts?: number;
  models?: ModelAdapters;
  /** The approver directory (ids, public keys, roles). Without one, nobody can approve. */
  approvers?: ApproverDirectory;
  /**
   * The ring this worker seals its results with and checks other workers' seals against
   * (activities/result-seal.ts). Default: the file AGENT_RESULT_KEYS names, else this machine's
   * own ring (activities/result-keys.ts). Every worker of the team's queues must hold the same.
   */
  resultKeys?: KeyRing;
}

/**
 * The engine's activities for a worker, the results it believes sealed with the worker's result
 * keys (a ring that cannot be read stops the worker here, at start).
 */
export function createActivities(options: ActivityDeps) {
  return sealActivities(resolveResultKeys(options.resultKeys), engineActivities(options));
}

/** The engine's activities before sealing: for a test that puts its own in place of some, then seals them all. */
export function engineActivities(options: ActivityDeps) {
  const implementations = registry(options.implementations);
  const toolTimeoutMs = options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  return {
    ...pingActivities,
    ...continuationActivities,
    ...usedStatementActivities,
    // Priced by agentSpendPlugin (worker/spend-plugin.ts) when a worker lists it.
    ...modelActivities(options.models ?? {}, implementations),
    ...toolActivities({ implementations, deps: options.deps, blobDir: options.blobDir, toolTimeoutMs }),
    ...probeActivities({
      implementations,
      deps: options.deps,
      toolTimeoutMs,
      blobDir: options.blobDir,
      readbackAttempts: options.readbackAttempts ?? DEFAULT_READBACK_ATTEMPTS,
      // Validated where it enters: a malformed directory stops the worker at start, loudly.
      approvers: ApproverDirectory.parse(options.approvers ?? { approvers: [] }),
    }),
  };
}

export type AgentActivities = ReturnType<typeof createActivities>;
