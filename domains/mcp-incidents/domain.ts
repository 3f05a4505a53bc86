// Incidents served by an MCP tool server: the contracts a domain author writes when the tools
// live behind MCP. The server is not trusted to say what a tool is (its `restart` even claims
// to be read-only); everything the engine acts on is declared here: read or effect, idempotent,
// authority, freshness, subject, facts, free text, the restart's precondition and its readback.
// Workflow-safe: zod and the engine's workflow entry only.
import { z } from 'zod';
import { defineDomain, defineTool, type EvidenceView } from '../../workflows/public.js';

export const Service = z.enum(['api', 'db', 'cache']);
export type Service = z.infer<typeof Service>;
const Iso = z.iso.datetime({ offset: true });
const serviceSubject = (args: { service: string }) => `service:${args.service}`;

export const getMetrics = defineTool({
  name: 'get_metrics',
  description: 'Current error rate, p99 latency, memory use and health of one service.',
  input: z.strictObject({ service: Service }),
  output: z.object({ service: Service, errorRate: z.number(), latencyP99Ms: z.number(), memoryPct: z.number(), healthy: z.boolean(), asOf: Iso }),
  kind: 'read',
  source: 'incidents-mcp/metrics',
  authority: 'authoritative',
  maxAgeMs: 2 * 60_000,
  maxObservationBytes: 2_048,
  subject: serviceSubject,
  answers: serviceSubject,
  facts: (o) => ({ [`${o.service}.healthy`]: o.healthy, [`${o.service}.errorRate`]: o.errorRate, [`${o.service}.memoryPct`]: o.memoryPct }),
  effectiveAt: (o) => o.asOf,
  freeText: () => [],
});

export const getLogs = defineTool({
  name: 'get_logs',
  description: 'Recent log lines of one service (free text, untrusted).',
  input: z.strictObject({ service: Service, limit: z.number().int().min(1).max(50).default(10) }),
  output: z.object({ service: Service, lines: z.array(z.string()), asOf: Iso }),
  kind: 'read',
  source: 'incidents-mcp/logs',
  maxAgeMs: 5 * 60_000,
  subject: serviceSubject,
  answers: serviceSubject,
  facts: (o) => ({ [`${o.service}.logLines`]: o.lines.length }),
  effectiveAt: (o) => o.asOf,
  // Log lines are whatever the service wrote: quoted to the model, never a fact or an instruction.
  freeText: (o) => o.lines,
});

export const restartService = defineTool({
  name: 'restart_service',
  description: 'Restart one service (clears memory exhaustion). Not idempotent: each call restarts again.',
  input: z.strictObject({ service: Service }),
  output: z.object({ effectId: z.string(), service: Service, appliedAt: Iso }),
  // Declared here, whatever the server's annotations say: an effect (so not idempotent), applied at most once per key.
  kind: 'effect',
  source: 'incidents-mcp/orchestrator',
  authority: 'authoritative',
  maxAgeMs: 5 * 60_000,
  maxObservationBytes: 1_024,
  subject: serviceSubject,
  readback: 'effect_by_key',
  // Metrics behind MCP may lag a restart: within a run of the default length (five minutes) its
  // readings are never grounds for a second restart of the service.
  settleMs: 5 * 60_000,
  precondition: { check: (args, about) => restartPrecondition(args.service, about) },
  facts: (o) => ({ [`${o.service}.restartedAt`]: o.appliedAt }),
  effectiveAt: (o) => o.appliedAt,
  freeText: () => [],
});

/** Memory use at or above this is exhaustion: the one thing a restart fixes. */
export const MEMORY_EXHAUSTED_PCT = 90;

/** A restart only on fresh, authoritative metrics of that service saying unhealthy and memory exhausted. */
function restartPrecondition(service: string, about: EvidenceView[]) {
  const metrics = [...about].reverse().find((e) => e.tool === 'get_metrics' && e.status === 'ok' && e.authority === 'authoritative');
  if (!metrics) return { ok: false as const, reason: `no metrics of ${service} have been read` };
  if (!metrics.fresh) return { ok: false as const, reason: `the metrics of ${service} (${metrics.id}) are no longer fresh; read them again` };
  if (metrics.facts[`${service}.healthy`] !== false) return { ok: false as const, reason: `fresh metrics (${metrics.id}) say ${service} is healthy` };
  const memory = metrics.facts[`${service}.memoryPct`];
  if (typeof memory !== 'number' || memory < MEMORY_EXHAUSTED_PCT) {
    return { ok: false as const, reason: `${service} is unhealthy but its memory is at ${String(memory)}%, not exhausted; a restart would not fix it` };
  }
  return { ok: true as const };
}

export const McpIncidentsClaim = z.strictObject({ remediated: Service });

export const mcpIncidents = defineDomain({
  name: 'mcp-incidents',
  caseId: z.string().regex(/^INC-[0-9A-Za-z-]{1,60}$/, 'an incident id such as INC-7'),
  goal: (caseId) =>
    `Incident ${caseId}: web latency is spiking. Find which of api, db, cache is unhealthy, restart it if its memory is exhausted, and finish only when it is healthy again.`,
  tools: [getMetrics, getLogs, restartService],
  claim: McpIncidentsClaim,
  claimSubject: (claim) => `service:${claim.remediated}`,
  judgeEvidence: (_claim, cited) => {
    if (!cited.some((e) => e.status === 'ok' && e.fresh && e.tool === 'get_metrics'))
      return { kind: 'unsupported', reason: 'cite fresh metrics of the service' };
    // The live probe decides; evidence alone cannot show the system is healthy again.
    return { kind: 'supported' };
  },
  judgeDone: (claim, done) => {
    const { remediated } = claim;
    return done.some((d) => d.tool === 'restart_service')
      ? { ok: true }
      : { ok: false, reason: `this run has not restarted ${remediated}; nothing of it was remediated` };
  },
  defaults: {
    budgets: { turns: 10, toolCalls: 16, effects: 1, duplicates: 2, tokens: 100_000, deadlineMs: 5 * 60_000 },
    context: 'window_pinned',
    window: 8,
  },
});
