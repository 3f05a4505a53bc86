// How the payments domain reads its evidence, shared by its contracts' judgements (domain.ts)
// and its route (route.ts), which would otherwise import each other.
import type { EvidenceView } from '../../workflows/public.js';

/** Evidence a decision may rest on: read successfully, still fresh, from an authority. */
export const usable = (e: EvidenceView) => e.status === 'ok' && e.fresh && e.authority === 'authoritative';

/** The newest evidence that matches. */
export function latest(views: EvidenceView[], match: (e: EvidenceView) => boolean): EvidenceView | undefined {
  return [...views].reverse().find(match);
}
