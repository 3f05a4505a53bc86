// How the simulated systems' errors read to the engine: a 4xx is a definite "no" (nothing
// happened), a 5xx, 429, timeout or broken connection is "unavailable" (for an effect: maybe
// happened, so it is read back). A real service's implementation writes the same few lines.
import { ToolRefused, ToolUnavailable } from '../../worker/public.js';
import { WorldConnectionError, WorldHttpError, WorldTimeoutError } from './client.js';

export function classifyWorldError(err: unknown): ToolRefused | ToolUnavailable | undefined {
  if (err instanceof WorldHttpError) {
    const code = typeof err.body === 'object' && err.body && 'error' in err.body ? String((err.body as { error: unknown }).error) : undefined;
    if (err.status >= 500 || err.status === 429) return new ToolUnavailable(`${err.status} from the system of record`);
    return new ToolRefused(`${err.status}${code ? ` ${code}` : ''} from the system of record`, code);
  }
  if (err instanceof WorldTimeoutError) return new ToolUnavailable(err.message, true);
  if (err instanceof WorldConnectionError) return new ToolUnavailable(err.message);
  return undefined;
}
