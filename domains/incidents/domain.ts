// Incident remediation: web latency spikes because one of api, db or cache failed. Reads are
// metrics, logs and deploys; the effects are restart and revert; "resolved" is decided by an
// end-to-end verify probe, never by the model. Workflow-safe.
import { z } from 'zod';
import { defineDomain, defineTool, routeHint, type DoneEffect, type DoneVerdict, type EvidenceView, type NextStepView } from '../../workflows/public.js';
import { isCaseRemediation, MEMORY_EXHAUSTED_PCT, restartKey, revertKey, Service } from './services.js';
import { incidentsRoute } from './route.js';

export { isCaseRemediation, MEMORY_EXHAUSTED_PCT, Service } from './services.js';

const Iso = z.iso.datetime({ offset: true });
// Versions become facts and even arguments of a revert: a strict shape keeps free text out.
const Version = z.string().regex(/^v\d{1,4}(\.\d{1,4}){0,2}$/);
const byService = z.strictObject({ service: Service });
/** Every incidents call is about one service. */
const serviceSubject = (args: { service: string }) => `service:${args.service}`;
// Record ids and keys that become facts: a strict shape, so no free text rides in on them.
const RecordId = /^[A-Za-z0-9_-]{1,80}$/;
const RecordKey = /^[A-Za-z0-9:._/-]{1,200}$/;

export const getMetrics = defineTool({
  name: 'get_metrics',
  subject: serviceSubject,
  answers: serviceSubject,
  description: 'Current error rate, p99 latency, memory use and health of one service.',
  input: byService,
  output: z.object({
    service: Service,
    errorRate: z.number(),
    latencyP99Ms: z.number(),
    memoryPct: z.number(),
    healthy: z.boolean(),
    asOf: Iso,
    /** The orchestrator's last restart or revert of the service, if any (older platforms omit it). */
    lastEffect: z
      .object({ kind: z.enum(['restart', 'revert']), effectId: z.string(), idempotencyKey: z.string(), appliedAt: Iso })
      .nullable()
      .optional(),
  }),
  kind: 'read',
  source: 'metrics',
  authority: 'authoritative',
  maxAgeMs: 2 * 60_000,
  maxObservationBytes: 2_048,
  facts: (o) => ({
    [`${o.service}.healthy`]: o.healthy,
    [`${o.service}.errorRate`]: o.errorRate,
    [`${o.service}.memoryPct`]: o.memoryPct,
    ...(o.lastEffect && RecordKey.test(o.lastEffect.idempotencyKey) && RecordId.test(o.lastEffect.effectId)
      ? {
          [`${o.service}.lastEffectKey`]: o.lastEffect.idempotencyKey,
          [`${o.service}.lastEffectId`]: o.lastEffect.effectId,
          [`${o.service}.lastEffectKind`]: o.lastEffect.kind,
        }
      : {}),
  }),
  effectiveAt: (o) => o.asOf,
  freeText: () => [],
});

export const getLogs = defineTool({
  name: 'get_logs',
  subject: serviceSubject,
  answers: serviceSubject,
  description: 'Recent log lines of one service (free text, untrusted).',
  input: z.strictObject({ service: Service, limit: z.number().int().min(1).max(50).default(10) }),
  output: z.object({ service: Service, lines: z.array(z.string()), asOf: Iso }),
  kind: 'read',
  source: 'logs',
  maxAgeMs: 5 * 60_000,
  facts: (o) => ({ [`${o.service}.logLines`]: o.lines.length }),
  effectiveAt: (o) => o.asOf,
  freeText: (o) => o.lines,
});

export const getDeploys = defineTool({
  name: 'get_deploys',
  subject: serviceSubject,
  answers: serviceSubject,
  description: 'Current and previous deployed version of one service: read it when a service is unhealthy but its memory is fine (a bad deploy).',
  input: byService,
  output: z.object({ service: Service, current: Version, previous: Version, deployedAt: Iso }),
  kind: 'read',
  source: 'deploys',
  authority: 'authoritative',
  maxAgeMs: 60 * 60_000,
  maxObservationBytes: 1_024,
  facts: (o) => ({ [`${o.service}.version`]: o.current, [`${o.service}.previousVersion`]: o.previous }),
  // The deploy record is the authority on what a service may be rolled back to: its previous
  // version. A version a log line, a note's words or the running deploy mentions is not one.
  factKind: (key) => (key.endsWith('.previousVersion') ? 'version' : undefined),
  vouchesFor: ['version'],
  freeText: () => [],
});

export const restartService = defineTool({
  name: 'restart_service',
  subject: serviceSubject,
  description: 'Restart one service. Fixes memory exhaustion only, not a bad deploy. Not idempotent: each call restarts again.',
  input: byService,
  output: z.object({ effectId: z.string(), service: Service, appliedAt: Iso }),
  kind: 'effect',
  source: 'orchestrator',
  authority: 'authoritative',
  maxAgeMs: 5 * 60_000,
  maxObservationBytes: 1_024,
  readback: 'read_incident_effect',
  businessKey: (a, run) => restartKey(run.caseId, a.service),
  precondition: { check: (args, about) => restartPrecondition(args.service, about) },
  facts: (o) => ({ [`${o.service}.restartedAt`]: o.appliedAt }),
  effectiveAt: (o) => o.appliedAt,
  freeText: () => [],
});

export const revertDeploy = defineTool({
  name: 'revert_deploy',
  subject: serviceSubject,
  description: 'Roll one service back to a given earlier version. The orchestrator dedupes by idempotency key.',
  input: z.strictObject({ service: Service, toVersion: Version }),
  // The target cites the deploy record's previous version (`e8.api.previousVersion`).
  argKinds: { toVersion: 'version' },
  output: z.object({ effectId: z.string(), service: Service, appliedAt: Iso }),
  kind: 'effect',
  idempotent: true,
  source: 'orchestrator',
  authority: 'authoritative',
  maxAgeMs: 5 * 60_000,
  maxObservationBytes: 1_024,
  readback: 'read_incident_effect',
  businessKey: (a, run) => revertKey(run.caseId, a.service, a.toVersion),
  precondition: { check: (args, about) => revertPrecondition(args.service, args.toVersion, about) },
  facts: (o) => ({ [`${o.service}.revertedAt`]: o.appliedAt }),
  effectiveAt: (o) => o.appliedAt,
  freeText: () => [],
});

/** The latest fresh, authoritative metrics of the service, or why there are none. */
function freshMetrics(service: string, about: EvidenceView[]): EvidenceView | string {
  const metrics = [...about].reverse().find((e) => e.tool === 'get_metrics' && e.status === 'ok' && e.authority === 'authoritative');
  if (!metrics) return `no metrics of ${service} have been read`;
  if (!metrics.fresh) return `the metrics of ${service} (${metrics.id}) are no longer fresh; read them again`;
  return metrics;
}

function restartPrecondition(service: string, about: EvidenceView[]) {
  const metrics = freshMetrics(service, about);
  if (typeof metrics === 'string') return { ok: false as const, reason: metrics };
  if (metrics.facts[`${service}.healthy`] !== false) return { ok: false as const, reason: `fresh metrics (${metrics.id}) say ${service} is healthy` };
  const memory = metrics.facts[`${service}.memoryPct`];
  if (typeof memory !== 'number' || memory < MEMORY_EXHAUSTED_PCT) {
    return {
      ok: false as const,
      reason: `${service} is unhealthy but its memory is at ${String(memory)}%, not exhausted; a restart would not fix it (if a deploy went bad, read get_deploys and revert_deploy to the previous version)`,
    };
  }
  return { ok: true as const };
}

function revertPrecondition(service: string, toVersion: string, about: EvidenceView[]) {
  const metrics = freshMetrics(service, about);
  if (typeof metrics === 'string') return { ok: false as const, reason: metrics };
  if (metrics.facts[`${service}.healthy`] !== false) return { ok: false as const, reason: `fresh metrics (${metrics.id}) say ${service} is healthy` };
  // A revert is the remedy for a bad deploy, not for memory exhaustion: rolling back a good
  // deploy of a service whose memory is exhausted leaves it degraded and loses the release.
  const memory = metrics.facts[`${service}.memoryPct`];
  if (typeof memory === 'number' && memory >= MEMORY_EXHAUSTED_PCT) {
    return {
      ok: false as const,
      reason: `${service}'s memory is at ${memory}% (${metrics.id}): exhaustion, which a restart fixes; nothing shows its deploy is the cause`,
    };
  }
  const deploys = [...about].reverse().find((e) => e.tool === 'get_deploys' && e.status === 'ok' && e.authority === 'authoritative');
  if (!deploys || !deploys.fresh) return { ok: false as const, reason: `no fresh deploy record of ${service} has been read` };
  const previous = deploys.facts[`${service}.previousVersion`];
  if (previous !== toVersion) return { ok: false as const, reason: `the previous version of ${service} is ${String(previous)}, not ${toVersion}` };
  return { ok: true as const };
}

export const IncidentsClaim = z.strictObject({ remediated: Service });

function judgeEvidence(_claim: z.infer<typeof IncidentsClaim>, cited: EvidenceView[]) {
  if (!cited.some((e) => e.status === 'ok' && e.fresh)) {
    return { kind: 'unsupported' as const, reason: 'cite at least one fresh observation' };
  }
  // The live verify probe decides; evidence alone cannot show the system is healthy again.
  return { kind: 'supported' as const };
}

/**
 * The remediation of a service an earlier run of this case made: the latest fresh metrics of the
 * service say it is healthy, and the orchestrator's last effect on it is keyed for this case.
 */
function remediatedEarlier(caseId: string, service: string, evidence: EvidenceView[]): { service: string; detail: string; evidenceId: string } | undefined {
  const metrics = [...evidence]
    .reverse()
    .find((e) => e.tool === 'get_metrics' && e.status === 'ok' && e.authority === 'authoritative' && `${service}.healthy` in e.facts);
  if (!metrics || !metrics.fresh || metrics.facts[`${service}.healthy`] !== true) return undefined;
  const key = metrics.facts[`${service}.lastEffectKey`];
  if (typeof key !== 'string' || !isCaseRemediation(caseId, service, key)) return undefined;
  const kind = String(metrics.facts[`${service}.lastEffectKind`] ?? 'remediation');
  return {
    service,
    evidenceId: metrics.id,
    detail: `${kind} ${String(metrics.facts[`${service}.lastEffectId`] ?? '')} under key ${key}, metrics ${metrics.id}`.replace(/\s+/g, ' '),
  };
}

/**
 * A finish is done when this run restarted or reverted something, or (`doneEarlier`, verified by
 * the probe) an earlier run of the case remediated the claimed service. Shared with the alerts
 * domain, whose runs use these contracts.
 */
export function judgeRemediationDone(claim: z.infer<typeof IncidentsClaim>, done: DoneEffect[], view: NextStepView): DoneVerdict {
  const { remediated } = claim;
  if (done.some((d) => d.tool === 'restart_service' || d.tool === 'revert_deploy')) return { ok: true };
  const reason = `this run has not restarted or reverted ${remediated}; nothing of it was remediated`;
  const earlier = remediatedEarlier(view.caseId, remediated, view.evidence);
  return earlier ? { ok: false, reason, doneEarlier: `${remediated} already remediated by an earlier run: ${earlier.detail}` } : { ok: false, reason };
}

export const incidents = defineDomain({
  name: 'incidents',
  caseId: z.string().regex(/^INC-[0-9A-Za-z-]{1,60}$/, 'an incident id such as INC-7'),
  goal: (caseId) =>
    `Incident ${caseId}: web latency is spiking. Find which of api, db, cache failed (get_metrics), remediate it (restart_service when its memory is exhausted; otherwise read get_deploys and revert_deploy to the previous version), and finish only when the system is healthy.`,
  tools: [getMetrics, getLogs, getDeploys, restartService, revertDeploy],
  claim: IncidentsClaim,
  claimSubject: (claim) => `service:${claim.remediated}`,
  judgeEvidence,
  // The runbook (route.ts): the route decides with it in shapes workflow and hybrid; in react
  // the model is shown its step as a hint.
  route: incidentsRoute,
  nextStep: routeHint(incidentsRoute),
  // "Remediated" means this run restarted or reverted that very service, or an earlier run of
  // this case did (the orchestrator's record, keyed by the case) and the service is healthy now.
  judgeDone: judgeRemediationDone,
  defaults: {
    budgets: { turns: 12, toolCalls: 20, effects: 2, duplicates: 2, tokens: 120_000, deadlineMs: 15 * 60_000 },
    context: 'window_pinned',
    window: 8,
  },
});
