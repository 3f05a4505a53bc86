// Incident remediation: web latency spikes because one of api, db or cache failed. Reads are
// metrics, logs and deploys; the effects are restart and revert; "resolved" is decided by an
// end-to-end verify probe, never by the model. Workflow-safe.
import { z } from 'zod';
import { defineTool, type Domain, type EvidenceView } from '../../workflows/contract.js';

export const Service = z.enum(['api', 'db', 'cache']);
const Iso = z.iso.datetime({ offset: true });
// Versions become facts and even arguments of a revert: a strict shape keeps free text out.
const Version = z.string().regex(/^v\d{1,4}(\.\d{1,4}){0,2}$/);
const byService = z.strictObject({ service: Service });

export const getMetrics = defineTool({
  name: 'get_metrics',
  description: 'Current error rate, p99 latency, memory use and health of one service.',
  input: byService,
  output: z.object({
    service: Service,
    errorRate: z.number(),
    latencyP99Ms: z.number(),
    memoryPct: z.number(),
    healthy: z.boolean(),
    asOf: Iso,
  }),
  kind: 'read',
  idempotent: true,
  source: 'metrics',
  authority: 'authoritative',
  maxAgeMs: 2 * 60_000,
  maxObservationBytes: 2_048,
  facts: (o) => ({
    [`${o.service}.healthy`]: o.healthy,
    [`${o.service}.errorRate`]: o.errorRate,
    [`${o.service}.memoryPct`]: o.memoryPct,
  }),
  effectiveAt: (o) => o.asOf,
  freeText: () => [],
});

export const getLogs = defineTool({
  name: 'get_logs',
  description: 'Recent log lines of one service (free text, untrusted).',
  input: z.strictObject({ service: Service, limit: z.number().int().min(1).max(50).default(10) }),
  output: z.object({ service: Service, lines: z.array(z.string()), asOf: Iso }),
  kind: 'read',
  idempotent: true,
  source: 'logs',
  authority: 'secondary',
  maxAgeMs: 5 * 60_000,
  maxObservationBytes: 4_096,
  facts: (o) => ({ [`${o.service}.logLines`]: o.lines.length }),
  effectiveAt: (o) => o.asOf,
  freeText: (o) => o.lines,
});

export const getDeploys = defineTool({
  name: 'get_deploys',
  description: 'Current and previous deployed version of one service.',
  input: byService,
  output: z.object({ service: Service, current: Version, previous: Version, deployedAt: Iso }),
  kind: 'read',
  idempotent: true,
  source: 'deploys',
  authority: 'authoritative',
  maxAgeMs: 60 * 60_000,
  maxObservationBytes: 1_024,
  facts: (o) => ({ [`${o.service}.version`]: o.current, [`${o.service}.previousVersion`]: o.previous }),
  effectiveAt: () => undefined,
  freeText: () => [],
});

export const restartService = defineTool({
  name: 'restart_service',
  description: 'Restart one service (clears memory exhaustion). Not idempotent: each call restarts again.',
  input: byService,
  output: z.object({ effectId: z.string(), service: Service, appliedAt: Iso }),
  kind: 'effect',
  idempotent: false,
  source: 'orchestrator',
  authority: 'authoritative',
  maxAgeMs: 5 * 60_000,
  maxObservationBytes: 1_024,
  readback: 'read_incident_effect',
  facts: (o) => ({ [`${o.service}.restartedAt`]: o.appliedAt }),
  effectiveAt: (o) => o.appliedAt,
  freeText: () => [],
});

export const revertDeploy = defineTool({
  name: 'revert_deploy',
  description: 'Roll one service back to a given earlier version. The orchestrator dedupes by idempotency key.',
  input: z.strictObject({ service: Service, toVersion: Version }),
  output: z.object({ effectId: z.string(), service: Service, appliedAt: Iso }),
  kind: 'effect',
  idempotent: true,
  source: 'orchestrator',
  authority: 'authoritative',
  maxAgeMs: 5 * 60_000,
  maxObservationBytes: 1_024,
  readback: 'read_incident_effect',
  facts: (o) => ({ [`${o.service}.revertedAt`]: o.appliedAt }),
  effectiveAt: (o) => o.appliedAt,
  freeText: () => [],
});

export const IncidentsClaim = z.strictObject({ remediated: Service });

function judgeEvidence(claim: unknown, cited: EvidenceView[]) {
  if (!IncidentsClaim.safeParse(claim).success) return { kind: 'unsupported' as const, reason: 'claim must be {remediated: service}' };
  if (!cited.some((e) => e.status === 'ok' && e.fresh)) {
    return { kind: 'unsupported' as const, reason: 'cite at least one fresh observation' };
  }
  // The live verify probe decides; evidence alone cannot show the system is healthy again.
  return { kind: 'supported' as const };
}

export const incidents: Domain = {
  name: 'incidents',
  goal: (caseId) =>
    `Incident ${caseId}: web latency is spiking. Find which of api, db, cache failed, remediate it (restart on memory exhaustion, revert a bad deploy), and finish only when the system is healthy.`,
  tools: [getMetrics, getLogs, getDeploys, restartService, revertDeploy],
  claim: IncidentsClaim,
  judgeEvidence,
  defaults: {
    budgets: { turns: 12, toolCalls: 20, effects: 2, duplicates: 2, tokens: 120_000, deadlineMs: 15 * 60_000 },
    context: 'window_pinned',
    window: 8,
    approvers: { 'carol@sre': ['sre-lead'] },
  },
};
