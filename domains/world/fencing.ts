// Fencing, one way for every kind of effect the world keeps by idempotency key: a readback that
// finds nothing also fences the key (in the same transaction), and a request under a fenced key
// sent before the fence is refused instead of committing late. The payments reissues and the
// incidents remediations differ only in which table holds their effects.
import { HttpError, ok, type Reply } from './http.js';
import type { WorldStore } from './store.js';

/** A request its sender has since read back and fenced must not commit late: 409 if it was sent before the fence. */
export function refuseIfFenced(store: WorldStore, idempotencyKey: string, sentAt: number | undefined): void {
  const fence = store.fencedBefore(idempotencyKey);
  if (fence !== undefined && (sentAt === undefined || sentAt < fence)) {
    throw new HttpError(409, { error: 'idempotency_key_fenced', fencedBefore: fence });
  }
}

/**
 * The readback that also fences, in one transaction: a request committed before it is found
 * (`{ applied: true, [field]: it }`), one sent before it and arriving after is refused
 * (`{ applied: false, [field]: null, fenced: true }`). `subject` is what the key is about, so
 * seeding that subject again clears the fence.
 */
export function findOrFence<T>(
  store: WorldStore,
  idempotencyKey: string,
  fence: { subject: string; before: number },
  field: string,
  find: (key: string) => T | undefined,
): Reply {
  return store.transaction(() => {
    const found = find(idempotencyKey) ?? null;
    if (found) return ok({ applied: true, [field]: found });
    store.fence(idempotencyKey, fence.subject, fence.before);
    return ok({ applied: false, [field]: null, fenced: true });
  });
}
