// Incident tools against the simulated platform. The verify probe is an end-to-end check of
// every service, independent of anything the model said.
import { implement } from '../../worker/public.js';
import { classifyWorldError } from '../world/classify.js';
import type { WorldDeps } from '../world/deps.js';
import { effectStamp } from '../world/stamp.js';
import { incidents } from './domain.js';
import { incidentsPolicy } from './policy.js';

export const incidentsImplementation = implement(incidents).with<WorldDeps>({
  tools: {
    get_metrics: (args, ctx) => ctx.deps.world.getMetrics(ctx.caseId, args.service, { timeoutMs: ctx.timeoutMs }),
    get_logs: (args, ctx) => ctx.deps.world.getLogs(ctx.caseId, args.service, { timeoutMs: ctx.timeoutMs, limit: args.limit }),
    get_deploys: (args, ctx) => ctx.deps.world.getDeploys(ctx.caseId, args.service, { timeoutMs: ctx.timeoutMs }),
    restart_service: (args, ctx) => ctx.deps.world.restart(ctx.caseId, { service: args.service, ...effectStamp(ctx) }, { timeoutMs: ctx.timeoutMs }),
    revert_deploy: (args, ctx) =>
      ctx.deps.world.revert(ctx.caseId, { service: args.service, toVersion: args.toVersion, ...effectStamp(ctx) }, { timeoutMs: ctx.timeoutMs }),
  },
  readbacks: {
    // The platform fences keys: a "not applied" read this way is final.
    read_incident_effect: async (key, ctx) => {
      const found =
        ctx.fenceBefore === undefined
          ? await ctx.deps.world.getIncidentEffectByKey(key, { timeoutMs: ctx.timeoutMs })
          : await ctx.deps.world.fenceIncidentEffectKey(key, { before: ctx.fenceBefore, caseId: ctx.caseId }, { timeoutMs: ctx.timeoutMs });
      if (found.applied && found.effect) return { applied: true, output: found.effect };
      return found.fenced ? { applied: false, fenced: true } : { applied: false };
    },
  },
  async probe(_claim, ctx) {
    const health = await ctx.deps.world.verify(ctx.caseId, { timeoutMs: ctx.timeoutMs });
    return {
      holds: health.healthy,
      conflict: false,
      decided: true,
      detail: health.healthy ? 'all services healthy' : `degraded: ${health.degraded.join(', ')}`,
      facts: { 'verify.healthy': health.healthy, 'verify.degraded': health.degraded.join(',') },
    };
  },
  policy: incidentsPolicy,
  classify: classifyWorldError,
});
