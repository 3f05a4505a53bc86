// Every activity the agent workflow calls, built from the worker's dependencies.
import { WorldClient } from '../domains/world/client.js';
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
}

export function createActivities(deps: ActivityDeps) {
  const world = new WorldClient(deps.worldUrl);
  const toolTimeoutMs = deps.toolTimeoutMs ?? 5_000;
  return {
    ...pingActivities,
    ...modelActivities(deps.models ?? {}),
    ...toolActivities({ world, blobDir: deps.blobDir, toolTimeoutMs }),
    ...probeActivities({ world, toolTimeoutMs, readbackAttempts: deps.readbackAttempts ?? 3 }),
  };
}

export type AgentActivities = ReturnType<typeof createActivities>;
