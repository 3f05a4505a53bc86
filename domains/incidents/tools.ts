// Incident tools against the simulated platform. The verify probe is an end-to-end check of
// every service, independent of anything the model said.
import type { DomainImplementation, ToolContext } from '../implementation.js';
import { incidentsPolicy } from './policy.js';

type ByService = { service: string };

export const incidentsImplementation: DomainImplementation = {
  tools: {
    get_metrics: (args: ByService, ctx: ToolContext) => ctx.world.getMetrics(ctx.caseId, args.service, { timeoutMs: ctx.timeoutMs }),
    get_logs: (args: ByService & { limit: number }, ctx: ToolContext) =>
      ctx.world.getLogs(ctx.caseId, args.service, { timeoutMs: ctx.timeoutMs, limit: args.limit }),
    get_deploys: (args: ByService, ctx: ToolContext) => ctx.world.getDeploys(ctx.caseId, args.service, { timeoutMs: ctx.timeoutMs }),
    restart_service: (args: ByService, ctx: ToolContext) =>
      ctx.world.restart(ctx.caseId, { service: args.service as 'api', idempotencyKey: requireKey(ctx) }, { timeoutMs: ctx.timeoutMs }),
    revert_deploy: (args: ByService & { toVersion: string }, ctx: ToolContext) =>
      ctx.world.revert(
        ctx.caseId,
        { service: args.service as 'api', toVersion: args.toVersion, idempotencyKey: requireKey(ctx) },
        { timeoutMs: ctx.timeoutMs },
      ),
  },
  readbacks: {
    read_incident_effect: async (key, ctx) => {
      const found = await ctx.world.getIncidentEffectByKey(key, { timeoutMs: ctx.timeoutMs });
      return found.applied && found.effect ? { applied: true, output: found.effect } : { applied: false };
    },
  },
  async probe(_claim, ctx) {
    const health = await ctx.world.verify(ctx.caseId, { timeoutMs: ctx.timeoutMs });
    return {
      holds: health.healthy,
      conflict: false,
      decided: true,
      detail: health.healthy ? 'all services healthy' : `degraded: ${health.degraded.join(', ')}`,
      facts: { 'verify.healthy': health.healthy, 'verify.degraded': health.degraded.join(',') },
    };
  },
  policy: incidentsPolicy,
};

function requireKey(ctx: ToolContext): string {
  if (!ctx.idempotencyKey) throw new Error('bug: an effect was dispatched without an idempotency key');
  return ctx.idempotencyKey;
}
