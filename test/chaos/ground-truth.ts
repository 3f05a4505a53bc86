// What the systems of record stored, against what each run believes happened. This is the chaos
// run's verdict on duplicates, and it reads only the world: a run's own account is never trusted.
import type { WorldClient } from '../../domains/world/client.js';
import type { ChaosCase } from './cases.js';

export interface GroundTruth {
  /** Effects the world stored for this chaos run's cases. */
  effects: number;
  /** Effects beyond one per case or per idempotency key, plus blind retries of non-idempotent ops. */
  duplicates: number;
  /** Requests the world deduplicated by key, and how many of those were non-idempotent ops. */
  deduplicated: number;
  blindRetries: number;
}

export async function groundTruth(world: WorldClient, cases: readonly ChaosCase[], log: (m: string) => void): Promise<GroundTruth> {
  const ours = new Set(cases.map((c) => c.caseId));
  const effects = (await world.effects()).filter((e) => ours.has(e.key));
  let duplicates = 0;
  for (const run of cases) {
    const stored = effects.filter((e) => e.key === run.caseId);
    const believedApplied = run.result?.effects.filter((e) => e.status === 'applied').length ?? 0;
    // Each case needs exactly one effect; more than one stored means something ran twice.
    if (stored.length > 1) duplicates += stored.length - 1;
    if (run.result && stored.length < believedApplied) log(`MISMATCH ${run.caseId}: run believes ${believedApplied} applied, world stored ${stored.length}`);
  }
  const perKey = new Map<string, number>();
  for (const e of effects) perKey.set(e.idempotencyKey, (perKey.get(e.idempotencyKey) ?? 0) + 1);
  duplicates += [...perKey.values()].filter((n) => n > 1).length;

  // A request that reached the world again under a key it already applied: the world deduped it,
  // but for a non-idempotent effect it means something retried blind. Counted as a duplicate.
  const calls = (await world.calls()).filter((c) => c.key !== null && ours.has(c.key));
  const deduplicated = calls.filter((c) => c.deduplicated);
  const blindRetries = deduplicated.filter((c) => c.op === 'payments.reissue' || c.op === 'incidents.restart').length;
  duplicates += blindRetries;
  return { effects: effects.length, duplicates, deduplicated: deduplicated.length, blindRetries };
}
