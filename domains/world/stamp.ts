// What every effect request to the simulated systems carries beside its arguments, from the
// engine's ToolContext: the key the system dedupes on, when the run sent it (so a fenced key
// refuses it if it arrives late), and the signed statements it goes out under (so an approval is
// spent once there, statements.ts). One helper, so no effect of the examples forgets a part.
import type { ToolContext } from '../../worker/public.js';

export function effectStamp(ctx: ToolContext): { idempotencyKey: string; sentAt?: number; approvedWith?: string[] } {
  if (!ctx.idempotencyKey) throw new Error('bug: an effect was dispatched without an idempotency key');
  return {
    idempotencyKey: ctx.idempotencyKey,
    ...(ctx.sentAt !== undefined ? { sentAt: ctx.sentAt } : {}),
    ...(ctx.approvedWith?.length ? { approvedWith: [...ctx.approvedWith] } : {}),
  };
}
