// A call to a system of record gets `timeoutMs`, enforced: the implementation is handed an
// AbortSignal that fires at the deadline (or when the activity is cancelled), and the engine
// stops waiting then even if the implementation ignores it. A call that ignored its signal may
// still be running against the world; for an effect that is exactly "outcome unknown", which
// the workflow settles by readback.
import { ToolUnavailable } from './tool-errors.js';

/** Runs `work` with a signal that aborts after `timeoutMs` or when `parent` aborts, whichever is first. */
export async function withDeadline<T>(timeoutMs: number, parent: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new ToolUnavailable(`no answer within ${timeoutMs} ms`, true)), timeoutMs);
  const onParentAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  const aborted = new Promise<never>((_, reject) => {
    if (controller.signal.aborted) reject(controller.signal.reason);
    else controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
  try {
    return await Promise.race([work(controller.signal), aborted]);
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener('abort', onParentAbort);
  }
}
