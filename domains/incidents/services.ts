// The incidents domain's vocabulary, apart from its tools: the services, what memory
// exhaustion is, and how the business keys of restarts and reverts are made. Shared by the
// tool contracts (domain.ts) and the route (route.ts), which would otherwise import each other.
import { z } from 'zod';
import { effectKey } from '../../workflows/public.js';

export const Service = z.enum(['api', 'db', 'cache']);

/**
 * A restart or revert is keyed by the case, the service and the action (and a revert by its
 * target): a second run of the case (a reset, a delete and start again) reaches the
 * orchestrator with the same key and is answered with the first effect, while a new incident
 * (a new case id) on the same service is keyed anew and still acted on. Within one case, a
 * service is restarted at most once: a relapse after a restart is a new incident.
 */
export const restartKey = (caseId: string, service: string) => `restart:${caseId}:${service}`;
export const revertKey = (caseId: string, service: string, toVersion: string) => `revert:${caseId}:${service}:${toVersion}`;
/**
 * Whether an orchestrator record's key is a restart or revert of this service for this case,
 * made by a run of any domain that uses these contracts (the idempotency key starts with the
 * domain's name: `incidents/...`, and `alerts/...` for an alert run, whose case ids are its own).
 */
export function isCaseRemediation(caseId: string, service: string, key: string): boolean {
  const domain = /^([a-z][a-z0-9-]*)\//.exec(key)?.[1];
  if (!domain) return false;
  return (
    key === effectKey(domain, 'restart_service', restartKey(caseId, service)) ||
    key.startsWith(effectKey(domain, 'revert_deploy', `revert:${caseId}:${service}:`))
  );
}

/** Memory use at or above this is exhaustion: the one thing a restart fixes. */
export const MEMORY_EXHAUSTED_PCT = 90;
