// An approval spent at the system of record. The engine refuses a used statement by reading the
// run's histories, but a history can be deleted (by retention, or by an operator) and a reset
// execution can be sent the statement again. So the world keeps its own record: the statements
// a request went out under (`approvedWith`, the fingerprints the engine hands the tool
// function) are stored with the request's idempotency key when the world decides it, in the
// same transaction as the effect, and a statement decides one request: a later request under it
// with another key, or after the world refused the first, is refused 409 `statement_already_used`.
// The same key again is the same effect (a retry after a lost reply), answered as before.
import type { Reply } from './http.js';
import type { WorldStore } from './store.js';

/** The statement fingerprints a request carries (its unvalidated body's `approvedWith`), at most eight. */
export function statementsOf(body: unknown): string[] {
  const list = (body as { approvedWith?: unknown } | null | undefined)?.approvedWith;
  return Array.isArray(list) ? list.filter((f): f is string => typeof f === 'string' && f.length > 0 && f.length <= 200).slice(0, 8) : [];
}

/** The refusal for a request under a statement already spent on another decision, or undefined. */
export function refusalIfSpent(store: WorldStore, statements: readonly string[], idempotencyKey: string | null): Reply | undefined {
  for (const fingerprint of statements) {
    const use = store.statementUse(fingerprint);
    if (!use || (use.idempotencyKey === idempotencyKey && use.decision === 'applied')) continue;
    return { status: 409, body: { error: 'statement_already_used', fingerprint, usedFor: use.idempotencyKey, decision: use.decision, at: use.at } };
  }
  return undefined;
}

/**
 * What a reply decided, for the statements it went out under: applied, refused on its merits, or
 * nothing (a malformed request, a request refused only because its key was fenced, a failure of
 * the world: the statement is still unspent, and the engine may send the same effect again).
 */
export function decisionOf(reply: Reply): 'applied' | 'refused' | undefined {
  if (reply.status < 300) return 'applied';
  const error = (reply.body as { error?: unknown } | null)?.error;
  if (reply.status >= 500 || reply.status === 400 || error === 'idempotency_key_fenced' || error === 'statement_already_used') return undefined;
  return 'refused';
}
