// Results a worker produced, told apart from results someone else wrote. An activity's result
// reaches the workflow through the Temporal frontend, and anyone who reaches the frontend can
// complete a pending activity with a result of their own (`temporal activity complete`, or a
// poller of their own on the task queue). So the engine's activities whose results it believes
// (tool calls, readbacks, probes, the approver directory, the statement-spend and continuation
// checks) return their result sealed: an HMAC-SHA256, under a key only the team's workers hold
// (activities/result-keys.ts), over the namespace and workflow id of the run that asked, a nonce
// the workflow chose for that one call, and the digest of the result (SHA-256 of its canonical
// JSON, the digest the workflow can compute too). The run is in the MAC because anyone who
// reaches the frontend can run a workflow of their own that schedules the engine's activities:
// its nonce may be copied from a pending call of a real run, but a workflow id is held by one
// running execution at a time, so what is sealed for theirs never opens in another run.
//
// Who checks a seal (workflows/sealed.ts): a local activity on the workflow's own worker, whose
// verdict the history records, for every result but reads; a read's seal travels, as its digest,
// with the run's next effect, and that effect's activity checks it before it sends anything
// (checkReads below). The envelope's shape is workflows/protocol.ts.
//
// The model's reply is sealed too when the workflow asks (shape `plan`, where the planner's reply
// is what the plan's own values rest on): beside the call's other fields, not around them, since
// the spend plugin prices the call around this activity and adds its cost to what it returns.
// The workflow takes the sealed reply as a read: its seal travels with the run's next effect.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Context, log, type Info } from '@temporalio/activity';
import type { KeyRing } from '../worker/payload-keys.js';
import { digestOf } from '../workflows/trust/statement.js';
import {
  isEnvelope,
  SEALED_ACTIVITIES,
  type Nonced,
  type ReadSeal,
  type ReplySeal,
  type Sealed,
  type SealedActivityName,
  type SealVerdict,
} from '../workflows/protocol.js';
import { checkCaller, strangerFailure } from './caller.js';
import { logLine } from './log-line.js';
import { RESULT_KEYS_ENV } from './result-keys.js';

function macOf(key: Buffer, scope: string, nonce: string, digest: string): string {
  return createHmac('sha256', key).update(scope).update('\n').update(nonce).update('\n').update(digest).digest('base64url');
}

/**
 * Whose call this is: the namespace and workflow id of the run that scheduled the activity
 * running now (a local activity's is its own run's). Empty outside an activity (unit tests).
 */
export function callerScope(): string {
  const info = activityInfo();
  return info ? `${info.workflowNamespace}\n${info.workflowExecution?.workflowId ?? ''}` : '';
}

/** The running activity's info; undefined outside an activity (this file's own tests). */
function activityInfo(): Info | undefined {
  try {
    return Context.current().info;
  } catch {
    return undefined;
  }
}

/** The result as JSON will carry it, sealed under the ring's current key for the run `scope` names. */
export function seal<T>(ring: KeyRing, scope: string, nonce: string, result: T): Sealed<T> {
  const sealed = JSON.parse(JSON.stringify(result ?? null)) as T;
  const key = ring.keys.get(ring.current) as Buffer;
  return { sealed, keyId: ring.current, mac: macOf(key, scope, nonce, digestOf(sealed)) };
}

/** Whether `envelope` is a result a worker holding this ring sealed for this run and nonce. */
export function checkSeal(ring: KeyRing, scope: string, nonce: string, envelope: unknown): SealVerdict {
  if (!isEnvelope(envelope)) return { ok: false, reason: 'it carries no seal' };
  return checkDigest(ring, scope, { nonce, digest: digestOf(envelope.sealed ?? null), keyId: envelope.keyId, mac: envelope.mac });
}

/** Whether a seal holds for a result known by its digest (the workflow computed it from what it took). */
export function checkDigest(ring: KeyRing, scope: string, seal: Omit<ReadSeal, 'what'>): SealVerdict {
  const key = ring.keys.get(seal.keyId);
  if (!key) {
    return {
      ok: false,
      reason: `it is sealed under key ${String(seal.keyId).slice(0, 64)}, which this worker does not hold (every worker needs the same ${RESULT_KEYS_ENV} ring)`,
    };
  }
  const expected = Buffer.from(macOf(key, scope, String(seal.nonce), String(seal.digest)));
  const given = Buffer.from(String(seal.mac));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'its seal does not match it' };
  return { ok: true };
}

/** The first of the run's reads whose seal does not hold, and why; undefined when all hold. */
export function checkReads(ring: KeyRing, scope: string, reads: readonly ReadSeal[]): string | undefined {
  for (const read of reads) {
    const verdict = checkDigest(ring, scope, read);
    if (!verdict.ok) return `${String(read.what).slice(0, 120)}: ${verdict.reason}`;
  }
  return undefined;
}

type AnyActivity = (...args: never[]) => Promise<unknown>;

/** The input a sealed activity takes: its own, with the workflow's nonce (and, for a tool call, the reads to check). */
type NoncedInput<F extends AnyActivity> = (Parameters<F> extends [infer I, ...unknown[]] ? (I extends object ? I : object) : object) &
  Nonced & { reads?: ReadSeal[] };

/** The model activity whose reply is sealed when the workflow gives it a nonce (sealReply). */
const SEALED_REPLY = 'propose';

/** The model call's input, with the workflow's nonce when it wants the reply sealed, and its result with the seal. */
type ReplySealing<F extends AnyActivity> = (
  input: (Parameters<F> extends [infer I, ...unknown[]] ? (I extends object ? I : object) : object) & Partial<Nonced>,
) => Promise<Awaited<ReturnType<F>> & { replySeal?: ReplySeal }>;

/** The activities with the sealed ones' inputs and results as they cross the frontend. */
export type SealedActivities<T> = {
  [K in keyof T]: K extends SealedActivityName
    ? T[K] extends AnyActivity
      ? (input: NoncedInput<T[K]>) => Promise<Sealed<Awaited<ReturnType<T[K]>>>>
      : T[K]
    : K extends typeof SEALED_REPLY
      ? T[K] extends AnyActivity
        ? ReplySealing<T[K]>
        : T[K]
      : T[K];
} & { checkResultSeals(input: { items: Array<Nonced & { envelope: unknown }> }): Promise<SealVerdict[]> };

/**
 * The activities, with every sealed one's result sealed under `ring`, and the local activity
 * the workflow asks whether a seal holds. A tool call, a readback or a probe scheduled by a
 * workflow that is not one of the engine's runs fails and does nothing (activities/caller.ts).
 * A tool call or a probe that carries the run's reads does nothing when one of them is not a
 * worker's, or when the server cannot say who scheduled it: the call answers `not_sent`, the
 * probe an undecided verdict, sealed. `callers: 'unchecked'` is for calling the wrappers in-process,
 * outside an activity (this file's own tests): otherwise a call with no activity around it, which
 * has no caller to check, is refused.
 */
export function sealActivities<T extends Record<string, unknown>>(
  ring: KeyRing,
  activities: T,
  options: { callers?: 'checked' | 'unchecked' } = {},
): SealedActivities<T> {
  const checked = options.callers !== 'unchecked';
  const out: Record<string, unknown> = { ...activities };
  for (const name of SEALED_ACTIVITIES) {
    const run = activities[name] as ((input: unknown) => Promise<unknown>) | undefined;
    if (typeof run !== 'function') continue;
    out[name] = async (input: unknown) => {
      const scope = callerScope();
      const refused = (checked ? await refusedOnCaller(name, input) : undefined) ?? refusedOnReads(ring, scope, name, input);
      return seal(ring, scope, nonceOf(input), refused ?? (await run(input)));
    };
  }
  const propose = activities[SEALED_REPLY] as ((input: unknown) => Promise<unknown>) | undefined;
  if (typeof propose === 'function') out[SEALED_REPLY] = async (input: unknown) => sealReply(ring, callerScope(), input, await propose(input));
  out.checkResultSeals = async ({ items }: { items: Array<Nonced & { envelope: unknown }> }): Promise<SealVerdict[]> =>
    items.map(({ nonce, envelope }) => {
      const verdict = checkSeal(ring, callerScope(), String(nonce), envelope);
      // Said where an operator looks: a worker on another ring turns every result into a claim.
      if (!verdict.ok) warn(`a result reached the workflow that no worker of this ring sealed: ${verdict.reason}`);
      return verdict;
    });
  return out as SealedActivities<T>;
}

/**
 * The model call's result with its reply sealed for the workflow's nonce; as it was when the
 * workflow gave none (outside shape `plan`, or a run recorded before replies were sealed).
 */
export function sealReply(ring: KeyRing, scope: string, input: unknown, output: unknown): unknown {
  const nonce = (input as Partial<Nonced> | undefined)?.nonce;
  if (typeof nonce !== 'string' || typeof output !== 'object' || output === null) return output;
  const { keyId, mac } = seal(ring, scope, nonce, (output as { reply?: unknown }).reply ?? null);
  const replySeal: ReplySeal = { keyId, mac };
  return { ...output, replySeal };
}

/** The activities that touch a system: only the engine's own runs may schedule them. */
const CALLER_CHECKED: ReadonlySet<SealedActivityName> = new Set(['invokeTool', 'readback', 'verify']);

/**
 * Undefined when the activity may go ahead: it touches no system, or one of the engine's runs
 * scheduled it. A stranger's call fails, unsealed. A caller the server could not confirm gets a
 * tool call not sent or a probe not asked (a readback is retried: it fails, to be asked again, and
 * once its attempts are spent the run takes it as undecided).
 */
async function refusedOnCaller(name: SealedActivityName, input: unknown): Promise<unknown> {
  if (!CALLER_CHECKED.has(name)) return undefined;
  const verdict = activityInfo() ? await checkCaller() : { ok: false as const, stranger: true as const, reason: 'it was called outside an activity' };
  if (verdict.ok) return undefined;
  if (verdict.stranger) {
    warn(`${name} refused: ${verdict.reason}`);
    throw strangerFailure(name, verdict.reason);
  }
  if (name === 'readback') throw new Error(`the readback was not asked: ${verdict.reason}`);
  return refusal(name, input, verdict.reason);
}

/**
 * What a tool call or a probe answers, without doing its work, when a read it carries is not a
 * worker's: the call was not sent, the probe was not asked. Undefined when every read holds.
 */
function refusedOnReads(ring: KeyRing, scope: string, name: SealedActivityName, input: unknown): unknown {
  const { reads } = (input ?? {}) as { reads?: unknown };
  if ((name !== 'invokeTool' && name !== 'verify') || !Array.isArray(reads) || reads.length === 0) return undefined;
  const forged = checkReads(ring, scope, reads as ReadSeal[]);
  if (!forged) return undefined;
  return refusal(name, input, `a read in the run's evidence is not a worker's (${forged})`);
}

/** A tool call not sent, or a probe not asked, and why. */
function refusal(name: SealedActivityName, input: unknown, why: string): unknown {
  const { call } = (input ?? {}) as { call?: { callId?: unknown } };
  warn(`${name === 'verify' ? 'a probe was not asked' : 'a tool call was refused'}: ${why}`);
  const now = Date.now();
  if (name === 'verify') return { holds: false, conflict: false, decided: false, detail: `${why}: the probe was not asked`, facts: {}, checkedAt: now };
  const message = `${why}: nothing is sent on it`;
  return { status: 'error', callId: String(call?.callId ?? ''), errorClass: 'not_sent', message, attempt: 1, startedAt: now, finishedAt: now };
}

/** The activity's logger; called outside an activity (sealActivities' own tests), it says nothing. */
function warn(message: string): void {
  // Its words may be anyone's (a forged key id, a stranger's workflow type): one line.
  if (activityInfo()) log.warn(logLine(message));
}

function nonceOf(input: unknown): string {
  const nonce = (input as Partial<Nonced> | undefined)?.nonce;
  return typeof nonce === 'string' ? nonce : '';
}
