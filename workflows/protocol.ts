// What the workflow and its activities exchange: the results activities hand back (checked
// where they enter the workflow: perform.ts, tool-results.ts) and the envelope a sealed result
// travels in (activities/result-seal.ts seals it, workflows/sealed.ts has it checked). Shared by
// both sides, so workflow-safe: zod schemas and plain data, no crypto, nothing of the controller.
import { z } from 'zod';
import { workerScoped } from './worker-scoped.js';

export const ToolResult = workerScoped('events.ToolResult', () =>
  z.discriminatedUnion('status', [
    z.strictObject({
      status: z.literal('ok'),
      callId: z.string(),
      output: z.unknown(),
      attempt: z.number(),
      startedAt: z.number(),
      finishedAt: z.number(),
      truncated: z.strictObject({ originalBytes: z.number(), ref: z.string() }).optional(),
      /** No worker sealed this reply (workflows/sealed.ts): an effect's is a claim the readback must confirm. */
      unsealed: z.literal(true).optional(),
    }),
    z.strictObject({
      status: z.enum(['error', 'timeout', 'unknown']),
      callId: z.string(),
      /** transient (5xx, connection), semantic (the system said no), bad_output (broke its contract) */
      // not_sent: refused before dispatch (no such tool on the worker, arguments invalid there).
      errorClass: z.enum(['transient', 'semantic', 'bad_output', 'timeout', 'unknown', 'not_sent']),
      message: z.string(),
      attempt: z.number(),
      startedAt: z.number(),
      finishedAt: z.number(),
    }),
  ]),
);
export type ToolResult = z.infer<typeof ToolResult>;

export const ProbeVerdict = workerScoped('events.ProbeVerdict', () =>
  z.strictObject({
    holds: z.boolean(),
    conflict: z.boolean(),
    /** Undecided: the probe could not read the world (timeout, outage). Never counts as holds. */
    decided: z.boolean(),
    detail: z.string(),
    facts: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    checkedAt: z.number(),
  }),
);
export type ProbeVerdict = z.infer<typeof ProbeVerdict>;

export const ReadbackResult = workerScoped('events.ReadbackResult', () =>
  z.strictObject({
    callId: z.string(),
    outcome: z.enum(['applied', 'not_applied', 'undecided']),
    output: z.unknown().optional(),
    detail: z.string(),
    attempts: z.number(),
    /** With not_applied: the system of record now refuses any request under the key sent before the readback. */
    fenced: z.boolean().optional(),
  }),
);
export type ReadbackResult = z.infer<typeof ReadbackResult>;

/**
 * The sides of a model call whose reported token count was below the engine's own estimate of
 * what it sent or received, so the estimate was charged instead (activities/model/usage-floor.ts).
 */
export const UsageFloor = workerScoped('events.UsageFloor', () => {
  const side = z.strictObject({ reported: z.number().int().min(0), charged: z.number().int().min(0) });
  return z.strictObject({ input: side.optional(), output: side.optional() });
});
export type UsageFloor = z.infer<typeof UsageFloor>;

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

/**
 * The seal on a model's reply, beside the call's other fields (the spend plugin prices the call
 * around the activity, so the reply is sealed, not the whole result): the MAC, under the nonce the
 * workflow chose, of the digest of `reply`. Asked for in shape `plan` only, where the planner's
 * reply is what the plan's own values rest on.
 */
export interface ReplySeal {
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
