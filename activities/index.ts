// Every activity the agent workflow calls, built from what the worker was given: the domains'
// implementations, your dependencies for them, the model adapters and the approver directory.
import { DEFAULT_READBACK_ATTEMPTS, DEFAULT_TOOL_TIMEOUT_MS } from '../workflows/policy.js';
import { ApproverDirectory } from '../workflows/trust/directory.js';
import { continuationActivities } from './continuation.js';
import { registry, type AnyImplementation } from './implement.js';
import { modelActivities, type ModelAdapters } from './model/index.js';
import { pingActivities } from './ping.js';
import { probeActivities } from './probes.js';
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
}

export function createActivities(options: ActivityDeps) {
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
      readbackAttempts: options.readbackAttempts ?? DEFAULT_READBACK_ATTEMPTS,
      // Validated where it enters: a malformed directory stops the worker at start, loudly.
      approvers: ApproverDirectory.parse(options.approvers ?? { approvers: [] }),
    }),
  };
}

export type AgentActivities = ReturnType<typeof createActivities>;
