// Which results the workflow believes. A sealed activity's result counts only when the team's
// result keys show that a worker sealed it for this one call (activities/result-seal.ts).
// Anything else is a claim: someone completed the activity by hand, or polled the task queue
// with a worker of their own. What a claim is worth is decided where the result is used
// (workflows/perform.ts): an effect's reply is read back, a readback is asked again, a probe's
// answer decides nothing, a read is not evidence.
//
// Who checks. An effect's reply, a readback, a probe's verdict and the continuation check's
// answer are checked when they arrive, by a local activity on this workflow's own worker; the
// history records the verdict, so a replay (or a worker whose ring has since been rotated) never
// checks it again. So is the directory a decision was judged on, before the loop takes the
// decision (readBehind): a decision acts with no effect after it. Everything else counts as a
// read: a tool's read, the approver directory, the statement-spend check. A read only informs
// the model, the controller and the approval gate until a call that reaches the world is sent on
// it (an effect, an egress read, a read a person approved: workflows/perform.ts), and a check per
// read would cost a workflow activation per
// read (about a sixth of a turn on the bench), so the seals of the run's reads travel, as
// digests of what the workflow took, with each such call, whose activity checks them before it
// sends anything (and answers not_sent if one fails), and with its probe, which answers undecided
// instead of probing if one fails. (Update handlers read the directory too, and a local activity
// there confuses Temporal's replay of the Update: the loop checks it.) A result that carries no seal
// at all needs no key to be refused: it is a claim at once.
//
// In shape `plan` the planner's reply is a read too (workflows/perform.ts): its values vouch
// there, so whoever completed the model call by hand must not write the plan an effect rests on.
//
// A rollover (continue-as-new) ends the execution that holds the run's reads: their seals are
// checked before it (checkReadsBeforeRollover), and the next execution starts with those that
// failed (carriedReads), so that each of its effects is refused as it would have been.
import { proxyLocalActivities, uuid4 } from '@temporalio/workflow';
import { z } from 'zod';
import type { AgentActivities } from '../activities/index.js';
import { sealCheckStarted } from './arrivals.js';
import { sealCheckOptions } from './policy.js';
import { isEnvelope, type ReadSeal, type Sealed, type SealVerdict } from './protocol.js';
import { digestOf } from './trust/statement.js';
import { workerScoped } from './worker-scoped.js';

const checker = proxyLocalActivities<AgentActivities>(sealCheckOptions);

/** A result as the workflow may take it: a worker's, or a claim (and why it is one). */
export type Opened<T> = { sealed: true; value: T } | { sealed: false; claim: unknown; reason: string };

/** Calls a sealed activity with a nonce of its own, and opens what comes back, its seal checked now. */
export async function sealedCall<T>(call: (nonce: string) => Promise<unknown>): Promise<Opened<T>> {
  const once = uuid4();
  const raw = await call(once);
  if (!isEnvelope(raw)) return { sealed: false, claim: raw, reason: 'it carries no seal' };
  const [verdict] = await checkSeals([{ nonce: once, envelope: raw }]);
  return verdict?.ok ? { sealed: true, value: raw.sealed as T } : { sealed: false, claim: raw.sealed, reason: verdict?.reason ?? 'no verdict' };
}

/** A fresh nonce, for a read whose result is opened by openRead. */
export const nonce = (): string => uuid4();

/** The run's reads whose seals no effect has carried yet. */
const unchecked: Array<{ what: string; nonce: string; envelope: Sealed<unknown> }> = [];

/** Read seals a previous execution's rollover carried, not vouched for there (carriedReads). */
const carriedOver: ReadSeal[] = [];

/**
 * A read's result, taken now (no promise of its own: a read is the commonest call of all), its
 * seal carried by the run's next effect (readSeals).
 */
export function openRead<T>(what: string, once: string, raw: unknown): Opened<T> {
  if (!isEnvelope(raw)) return { sealed: false, claim: raw, reason: 'it carries no seal' };
  unchecked.push({ what, nonce: once, envelope: raw });
  return { sealed: true, value: raw.sealed as T };
}

/**
 * Calls a sealed activity whose answer counts as a read (its seal carried by the run's next
 * effect), with the nonce it was asked under (judgedOnRead takes it).
 */
export function sealedRead<T>(what: string, call: (nonce: string) => Promise<unknown>): Promise<Opened<T> & { nonce: string }> {
  const once = uuid4();
  return call(once).then((raw) => ({ ...openRead<T>(what, once, raw), nonce: once }));
}

/**
 * Events the loop takes on a read (a decision, judged on the directory its Update handler read):
 * the read's nonce, and why the loop did not take the event once it has refused it.
 */
const restsOn = new WeakMap<object, { nonce: string; refused?: string }>();

/** Marks `event` as judged on the read with this nonce: the loop checks that read's seal before it takes the event. */
export function judgedOnRead(event: object, once: string): void {
  restsOn.set(event, { nonce: once });
}

/**
 * Before the loop takes an event judged on a read (an approval, a denial or an amendment, on the
 * directory its handler read): that read's seal, checked now, since what the event does needs no
 * effect to follow it (a denial closes the request, a directory with too few approvers closes it
 * too) and an effect is where a read's seal is checked otherwise. Undefined when there is nothing
 * to check (no read behind the event, or an effect has vouched for it already): the event is
 * taken as it is, with no promise. Otherwise whether the loop may take it; when not, the event's
 * handler learns why (notTakenBecause). Either way the read leaves the list later effects carry:
 * it was checked, and nothing but the event was judged on it.
 */
function readBehind(event: object): Promise<boolean> | undefined {
  const behind = restsOn.get(event);
  const read = behind && unchecked.find((r) => r.nonce === behind.nonce);
  if (!behind || !read) return undefined;
  return checkSeals([read]).then(([verdict]) => {
    unchecked.splice(unchecked.indexOf(read), 1);
    if (!verdict?.ok) behind.refused = verdict?.reason ?? 'no verdict';
    return verdict?.ok === true;
  });
}

/**
 * Whether the loop may take the first event of its queue (readBehind): undefined when there is
 * nothing to check. The event stays first until the check has answered, since its handler waits
 * for it to leave; one the loop may not take leaves the queue here, untaken.
 */
export function firstTakeable(queue: object[]): Promise<boolean> | undefined {
  const first = queue[0];
  return (
    first &&
    readBehind(first)?.then((holds) => {
      if (!holds) queue.shift();
      return holds;
    })
  );
}

/** Why the loop did not take `event` (readBehind), if it did not. */
export function notTakenBecause(event: object): string | undefined {
  return restsOn.get(event)?.refused;
}

/** The seals an effect carries: every read not yet vouched for, by the digest of what the workflow took. */
export function readSeals(): ReadSeal[] {
  return [
    ...carriedOver,
    ...unchecked.map(({ what, nonce: once, envelope }) => ({
      what,
      nonce: once,
      digest: digestOf(envelope.sealed ?? null),
      keyId: envelope.keyId,
      mac: envelope.mac,
    })),
  ];
}

/**
 * An effect's activity that carried these read seals went ahead: those reads were a worker's.
 * (An effect refused keeps them, so every later effect is refused on them too.)
 */
export function readsVouched(carried: readonly ReadSeal[]): void {
  const vouched = new Set(carried.map((r) => r.nonce));
  for (let i = unchecked.length - 1; i >= 0; i--) if (vouched.has(unchecked[i]?.nonce ?? '')) unchecked.splice(i, 1);
  for (let i = carriedOver.length - 1; i >= 0; i--) if (vouched.has(carriedOver[i]?.nonce ?? '')) carriedOver.splice(i, 1);
}

/** The read seals a rollover carries at most: one that fails already refuses every later effect. */
const MAX_CARRIED_READS = 16;
/** Each of a carried seal's words at most (a forged one's keyId and mac are anyone's strings). */
const MAX_SEAL_WORD = 200;

const CarriedReads = workerScoped('sealed.CarriedReads', () => {
  const word = z.string().max(MAX_SEAL_WORD);
  return z.array(z.strictObject({ what: word, nonce: word, digest: word, keyId: word, mac: word })).max(MAX_CARRIED_READS);
});

/**
 * Before a rollover (workflows/agent.ts): the seals of the reads no effect has vouched for,
 * checked now (an effect of the next execution could not check them: its state has the reads'
 * facts, not the reads). Those that hold leave the list; the rest, and those a previous rollover
 * carried, are what the rollover carries (a seal that failed stays failed when clipped).
 */
export async function checkReadsBeforeRollover(): Promise<ReadSeal[] | undefined> {
  const pending = unchecked.slice();
  if (pending.length) {
    // A check that could not run says nothing of any read: no rollover now (agent.ts tries again
    // at its next quiet point; until then the next effect carries every seal, as always).
    const verdicts = await askChecker(pending).catch(() => undefined);
    if (!verdicts) return undefined;
    pending.forEach((read, i) => {
      const at = unchecked.indexOf(read);
      if (verdicts[i]?.ok && at >= 0) unchecked.splice(at, 1);
    });
  }
  return readSeals()
    .slice(0, MAX_CARRIED_READS)
    .map((r) => ({
      what: r.what.slice(0, MAX_SEAL_WORD),
      nonce: r.nonce.slice(0, MAX_SEAL_WORD),
      digest: r.digest.slice(0, MAX_SEAL_WORD),
      keyId: r.keyId.slice(0, MAX_SEAL_WORD),
      mac: r.mac.slice(0, MAX_SEAL_WORD),
    }));
}

/**
 * The read seals the previous execution's rollover carried, back in the list every effect carries:
 * only with carried state (which the run checks is its own rollover's: carried-state.ts); anything
 * malformed refuses the input.
 */
export function carriedReads(reads: unknown, withCarriedState: boolean): { ok: true } | { ok: false; problem: string } {
  if (reads === undefined) return { ok: true };
  if (!withCarriedState) return { ok: false, problem: 'read seals are carried only with the state of a rollover' };
  const parsed = CarriedReads.safeParse(reads);
  if (!parsed.success) return { ok: false, problem: `carried read seals are invalid: ${parsed.error.issues[0]?.message ?? 'unknown'}` };
  carriedOver.push(...parsed.data);
  return { ok: true };
}

/** The local activity's verdicts on the batch; it rejects when the check cannot run. */
function askChecker(items: Array<{ nonce: string; envelope: unknown }>): Promise<SealVerdict[]> {
  sealCheckStarted(); // what arrives until the loop acts on the verdict waits (arrivals.ts)
  return checker.checkResultSeals({ items: items.map(({ nonce: once, envelope }) => ({ nonce: once, envelope })) });
}

/** How a claim's reason begins when the check itself could not run (not a seal that failed). */
export const CHECK_DID_NOT_RUN = 'its seal could not be checked';

/** One local activity for the batch; a check that cannot run leaves every result in it a claim. */
async function checkSeals(items: Array<{ nonce: string; envelope: unknown }>): Promise<SealVerdict[]> {
  return askChecker(items).catch((err: unknown) => {
    const reason = `${CHECK_DID_NOT_RUN} (${err instanceof Error ? err.message : String(err)})`;
    return items.map(() => ({ ok: false, reason }));
  });
}

/** A result the workflow made itself (a refusal before sending): nothing to check. */
export function own<T>(value: T): Opened<T> {
  return { sealed: true, value };
}
