// Every activity the agent workflow calls, built from the worker's dependencies.
import { WorldClient } from '../domains/world/client.js';
import { ApproverDirectory } from '../workflows/trust/directory.js';
import { modelActivities, type ModelAdapters } from './model/index.js';
import { pingActivities } from './ping.js';
import { probeActivities } from './probes.js';
import { toolActivities } from './tools.js';

export interface ActivityDeps {
  worldUrl: string;
  blobDir: string;
  toolTimeoutMs?: number;
  readbackAttempts?: number;
  models?: ModelAdapters;
  /** The approver directory (ids, public keys, roles). Without one, nobody can approve. */
  approvers?: ApproverDirectory;
}

export function createActivities(deps: ActivityDeps) {
  const world = new WorldClient(deps.worldUrl);
  const toolTimeoutMs = deps.toolTimeoutMs ?? 5_000;
  return {
    ...pingActivities,
    ...modelActivities(deps.models ?? {}),
    ...toolActivities({ world, blobDir: deps.blobDir, toolTimeoutMs }),
    ...probeActivities({
      world,
      toolTimeoutMs,
      readbackAttempts: deps.readbackAttempts ?? 3,
      // Validated where it enters: a malformed directory stops the worker at start, loudly.
      approvers: ApproverDirectory.parse(deps.approvers ?? { approvers: [] }),
    }),
  };
}

export type AgentActivities = ReturnType<typeof createActivities>;
