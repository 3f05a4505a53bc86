// What a Kubernetes API answer means to the engine, in one place: a 4xx is the API server saying
// no (nothing was written), a 5xx, a 429 or no answer at all is "unavailable" (for an effect:
// maybe written, so the engine reads it back by key). And the one place that asks again while
// the API server is away (restarting, overloaded): a readback must ride out an API server restart
// rather than give up and leave the run's effect in doubt.
import { setTimeout as sleep } from 'node:timers/promises';
import { ToolRefused, ToolUnavailable } from '../../worker/public.js';
import { KubernetesApiError, KubernetesUnreachableError } from '../../kubernetes/api.js';

export function classifyKubernetesError(err: unknown): ToolRefused | ToolUnavailable | undefined {
  if (err instanceof KubernetesApiError) {
    if (err.status >= 500 || err.status === 429) return new ToolUnavailable(`${err.status} ${err.reason} from the Kubernetes API server`);
    return new ToolRefused(`${err.status}${err.reason ? ` ${err.reason}` : ''} from the Kubernetes API server: ${err.message}`, err.reason || undefined);
  }
  if (err instanceof KubernetesUnreachableError) return new ToolUnavailable(err.message, /no answer in/.test(err.message));
  return undefined;
}

/** The API server did not answer, or answered that it cannot now: asking again may help. */
export function isUnavailable(err: unknown): boolean {
  return err instanceof KubernetesUnreachableError || (err instanceof KubernetesApiError && (err.status >= 500 || err.status === 429));
}

/**
 * `work`, asked again while the API server is unavailable, for up to `patienceMs` (backing off
 * from a quarter of a second to two). Any other error, or the last unavailable one, is thrown.
 */
export async function whileUnavailable<T>(patienceMs: number, work: () => Promise<T>): Promise<T> {
  const giveUpAt = Date.now() + patienceMs;
  for (let wait = 250; ; wait = Math.min(wait * 2, 2_000)) {
    try {
      return await work();
    } catch (err) {
      if (!isUnavailable(err) || Date.now() + wait > giveUpAt) throw err;
      await sleep(wait);
    }
  }
}
