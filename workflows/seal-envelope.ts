// The shape a sealed activity result travels in, shared by the activities that seal it
// (activities/result-seal.ts) and the workflow that has it checked (workflows/sealed.ts).
// Workflow-safe: plain data and a shape check, no crypto.

/** The activities whose results are sealed: every one whose result the engine believes. */
export const SEALED_ACTIVITIES = ['invokeTool', 'readback', 'verify', 'loadApprovers', 'statementsUsedElsewhere', 'checkContinuation'] as const;
export type SealedActivityName = (typeof SEALED_ACTIVITIES)[number];

/** What a sealed activity returns: its result, the key that sealed it, and the seal. */
export interface Sealed<T> {
  sealed: T;
  keyId: string;
  mac: string;
}

/** What the workflow adds to a sealed activity's input: the nonce its seal must cover. */
export interface Nonced {
  nonce: string;
}

/** A read's seal as the run's next effect carries it: the digest the workflow computed of what it took. */
export interface ReadSeal {
  /** Which read (tool and call id), for the refusal's words. */
  what: string;
  nonce: string;
  digest: string;
  keyId: string;
  mac: string;
}

/** The seal checker's verdict, as the local activity returns it (and the history records it). */
export type SealVerdict = { ok: true } | { ok: false; reason: string };

/** Shaped like a sealed result (whether the seal holds is the checker's question). */
export function isEnvelope(value: unknown): value is Sealed<unknown> {
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, 'sealed')) return false;
  const { keyId, mac } = value as { keyId?: unknown; mac?: unknown };
  return typeof keyId === 'string' && typeof mac === 'string';
}
