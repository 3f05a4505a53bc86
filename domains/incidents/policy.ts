// The incidents `rules` model: look at every service at once, dig into the unhealthy one,
// restart on memory exhaustion or revert a bad deploy, re-check, and only then claim done.
import type { CompiledContext } from '../../workflows/public.js';
import { call, escalate, finish, knownFacts, lastControl } from '../policy-helpers.js';
import { isCaseRemediation } from './domain.js';

const services = ['api', 'db', 'cache'] as const;

export function incidentsPolicy(context: CompiledContext): unknown {
  const facts = knownFacts(context);
  const feedback = lastControl(context);
  if (feedback?.code === 'probe_failed' && facts.has('verify.healthy')) {
    return escalate(`remediation did not restore health: ${feedback.message}`);
  }
  if (services.some((s) => !facts.has(`${s}.healthy`))) {
    return call(...services.filter((s) => !facts.has(`${s}.healthy`)).map((service) => ({ tool: 'get_metrics', args: { service } })));
  }
  const sick = services.find((s) => facts.get(`${s}.healthy`)?.value === false);
  const remediated = services.find((s) => facts.has(`${s}.restartedAt`) || facts.has(`${s}.revertedAt`));

  if (!sick) {
    const healthy = remediated && facts.get(`${remediated}.healthy`);
    if (remediated && healthy) return finish({ remediated }, [healthy.evidenceId], `${remediated} remediated and healthy`);
    // Healthy because an earlier run of this case remediated it (a reset, a second start).
    const earlier = services.find((s) => {
      const key = facts.get(`${s}.lastEffectKey`)?.value;
      return typeof key === 'string' && isCaseRemediation(context.caseId, s, key);
    });
    const seen = earlier && facts.get(`${earlier}.healthy`);
    if (earlier && seen) return finish({ remediated: earlier }, [seen.evidenceId], `${earlier} was remediated by an earlier run of this case and is healthy`);
    return escalate('every service looks healthy; nothing to remediate');
  }
  if (remediated === sick) {
    // The effect happened but the last reading predates it: look again before deciding.
    const metrics = facts.get(`${sick}.healthy`);
    const effect = facts.get(`${sick}.restartedAt`) ?? facts.get(`${sick}.revertedAt`);
    if (metrics && effect && Number(metrics.evidenceId.slice(1)) < Number(effect.evidenceId.slice(1))) {
      return call({ tool: 'get_metrics', args: { service: sick } });
    }
    return escalate(`${sick} is still unhealthy after remediation`);
  }
  if (!facts.has(`${sick}.version`)) {
    return call({ tool: 'get_logs', args: { service: sick, limit: 10 } }, { tool: 'get_deploys', args: { service: sick } });
  }
  const memory = Number(facts.get(`${sick}.memoryPct`)?.value ?? 0);
  if (memory >= 90) return call({ tool: 'restart_service', args: { service: sick } });
  const previous = facts.get(`${sick}.previousVersion`);
  if (typeof previous?.value === 'string') {
    const sources = { toVersion: `${previous.evidenceId}.${sick}.previousVersion` };
    return call({ tool: 'revert_deploy', args: { service: sick, toVersion: previous.value }, sources });
  }
  return escalate(`${sick} is unhealthy and neither memory nor a deploy explains it`);
}
