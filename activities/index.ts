// Every activity the agent workflow calls, built from what the worker was given: the domains'
// implementations, your dependencies for them, the model adapters and the approver directory.
import { DEFAULT_READBACK_ATTEMPTS, DEFAULT_TOOL_TIMEOUT_MS } from '../workflows/policy.js';
import { ApproverDirectory } from '../workflows/trust/directory.js';
import { continuationActivities } from './continuation.js';
import { registry, type AnyImplementation } from './implement.js';
import { modelActivities, type ModelAdapters, type ProposeInput } from './model/index.js';
import { withSpend, type SpendOptions, type SpendOutput } from './spend/spending.js';
import { pingActivities } from './ping.js';
import { probeActivities } from './probes.js';
import { toolActivities } from './tools.js';

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
  /** Prices and team caps for model calls (activities/spend): without them calls are not priced. */
  spend?: SpendOptions;
  /** The approver directory (ids, public keys, roles). Without one, nobody can approve. */
  approvers?: ApproverDirectory;
}

export function createActivities(options: ActivityDeps) {
  const implementations = registry(options.implementations);
  const toolTimeoutMs = options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  return {
    ...pingActivities,
    ...continuationActivities,
    ...priced(modelActivities(options.models ?? {}, implementations), options.spend),
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

/** The model call, priced and held to the teams' daily caps when the worker has spend options. */
function priced(models: ReturnType<typeof modelActivities>, spend: SpendOptions | undefined): { propose: (input: ProposeInput) => Promise<SpendOutput> } {
  return spend ? { propose: withSpend(models.propose, spend) } : models;
}

export type AgentActivities = ReturnType<typeof createActivities>;
