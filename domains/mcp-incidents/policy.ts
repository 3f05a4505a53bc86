// The MCP incidents `rules` model: read every service's metrics, read the logs of the unhealthy
// one, restart it when its memory is exhausted, read its metrics again after the restart, and
// only then claim it remediated. It looks at typed facts only, never at quoted log text.
import type { CompiledContext } from '../../workflows/public.js';
import { call, escalate, finish, knownFacts } from '../policy-helpers.js';
import { MEMORY_EXHAUSTED_PCT, Service } from './domain.js';

const services = Service.options;

export function mcpIncidentsPolicy(context: CompiledContext): unknown {
  const facts = knownFacts(context);
  const unread = services.filter((s) => !facts.has(`${s}.healthy`));
  if (unread.length) return call(...unread.map((service) => ({ tool: 'get_metrics', args: { service } })));

  const sick = services.find((s) => facts.get(`${s}.healthy`)?.value === false);
  const restarted = services.find((s) => facts.has(`${s}.restartedAt`));
  if (restarted) {
    const metrics = facts.get(`${restarted}.healthy`);
    const effect = facts.get(`${restarted}.restartedAt`);
    // The restart happened after the last reading: look again before deciding anything.
    if (metrics && effect && evidenceNumber(metrics.evidenceId) < evidenceNumber(effect.evidenceId)) {
      return call({ tool: 'get_metrics', args: { service: restarted } });
    }
    if (metrics?.value === true) return finish({ remediated: restarted }, [metrics.evidenceId], `${restarted} restarted and healthy`);
    return escalate(`${restarted} is still unhealthy after its restart`);
  }
  if (!sick) return escalate('every service looks healthy; nothing to remediate');
  if (!facts.has(`${sick}.logLines`)) return call({ tool: 'get_logs', args: { service: sick, limit: 10 } });
  const memory = Number(facts.get(`${sick}.memoryPct`)?.value ?? 0);
  if (memory >= MEMORY_EXHAUSTED_PCT) return call({ tool: 'restart_service', args: { service: sick } });
  return escalate(`${sick} is unhealthy and its memory (${memory}%) does not explain it; a restart would not help`);
}

function evidenceNumber(id: string): number {
  return Number(id.slice(1));
}
