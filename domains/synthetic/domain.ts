// A synthetic domain for benchmarks and engine tests: no-op tools whose only job is to make
// the controller and Temporal do their full work per turn (reads that always bring a new
// fact, effects with keys and readbacks, an effect behind an approval) at zero tool latency.
import { z } from 'zod';
import { defineDomain, defineTool } from '../../workflows/public.js';

const Iso = z.iso.datetime({ offset: true });
const Counter = z.strictObject({
  n: z.number().int().min(0),
  lane: z.number().int().min(0).max(8).default(0),
  pad: z.number().int().min(0).max(200_000).default(0),
});
const Touched = z.object({ n: z.number().int(), effectId: z.string(), appliedAt: Iso });

export const readCounter = defineTool({
  name: 'read_counter',
  description: 'Returns the counter n (each n is a new fact); `pad` adds that many bytes of payload.',
  input: Counter,
  output: z.object({ n: z.number().int(), lane: z.number().int(), asOf: Iso, pad: z.string() }),
  kind: 'read',
  source: 'synthetic',
  authority: 'authoritative',
  maxAgeMs: 60 * 60_000,
  maxObservationBytes: 256 * 1024,
  facts: (o) => ({ [`counter.${o.lane}`]: o.n }),
  effectiveAt: (o) => o.asOf,
  freeText: () => [],
});

export const touch = defineTool({
  name: 'touch',
  description: 'A no-op effect, applied once per idempotency key.',
  input: z.strictObject({ n: z.number().int().min(0) }),
  output: Touched,
  kind: 'effect',
  source: 'synthetic',
  authority: 'authoritative',
  maxAgeMs: 60 * 60_000,
  maxObservationBytes: 1_024,
  readback: 'read_touch',
  // n is a label for the bench's bookkeeping; it picks no target.
  narrativeArgs: ['n'],
  facts: (o) => ({ 'touch.last': o.n }),
  effectiveAt: (o) => o.appliedAt,
  freeText: () => [],
});

export const gatedTouch = defineTool({
  ...touch,
  name: 'gated_touch',
  description: 'The same no-op effect, behind a human approval.',
  approval: { roles: ['synthetic-approver'], timeoutMs: 60 * 60_000, onTimeout: 'escalate' },
  facts: (o: z.infer<typeof Touched>) => ({ 'gated.last': o.n }),
});

/** Four eyes: two distinct approvers, neither of them the one who signed the run's start. */
export const dualTouch = defineTool({
  ...touch,
  name: 'dual_touch',
  description: 'The same no-op effect, behind two approvals by people other than the starter.',
  approval: { roles: ['synthetic-approver'], timeoutMs: 60 * 60_000, onTimeout: 'escalate', quorum: 2, notStarter: true },
  facts: (o: z.infer<typeof Touched>) => ({ 'dual.last': o.n }),
});

export const synthetic = defineDomain({
  name: 'synthetic',
  goal: (caseId) => `Synthetic run ${caseId}: count, touch, finish.`,
  tools: [readCounter, touch, gatedTouch, dualTouch],
  claim: z.strictObject({ done: z.literal(true) }),
  judgeEvidence: (_claim, cited) =>
    cited.some((e) => e.status === 'ok' && e.fresh) ? { kind: 'supported' } : { kind: 'unsupported', reason: 'cite a fresh observation' },
  defaults: {
    budgets: { turns: 50_000, toolCalls: 200_000, effects: 20_000, duplicates: 10, tokens: 1_000_000_000_000, deadlineMs: 24 * 3_600_000 },
    context: 'window_pinned',
    window: 8,
  },
});
