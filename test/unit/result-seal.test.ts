// Sealed results (activities/result-seal.ts, activities/result-keys.ts): a result counts only
// under a seal a worker of the team made for that one call, and a ring is rotated by adding the
// new key before making it current, and dropping the old one once no result sealed under it can
// still arrive. Real HMACs over real rings; the rings are files, as an operator writes them.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RESULT_KEYS_ENV, resolveResultKeys } from '../../activities/result-keys.js';
import { checkReads, checkSeal, seal, sealActivities } from '../../activities/result-seal.js';
import { digestOf } from '../../workflows/trust/statement.js';
import { parseKeyRing, PayloadKeyRingError, readKeyRing, type KeyRing } from '../../worker/payload-keys.js';

const material = () => randomBytes(32).toString('base64');
/** The run a seal is for (callerScope: namespace and workflow id); outside an activity, the empty one. */
const RUN = 'default\nrun-1';
/** The run sealActivities' wrappers seal for and check against when called outside an activity, as here. */
const OUTSIDE = '';
const k1 = material();
const k2 = material();

function ring(current: string, keys: Record<string, string>): KeyRing {
  const parsed = parseKeyRing({ current, keys });
  if (!parsed.ok) throw parsed.error;
  return parsed.ring;
}

const result = { callId: 'c3', outcome: 'not_applied', detail: 'no effect stored under key k', attempts: 1, fenced: true };

describe('a sealed result', () => {
  const before = ring('k1', { k1 });

  it('is checked as the workflow receives it: after a JSON round trip through the frontend', () => {
    const envelope = JSON.parse(JSON.stringify(seal(before, RUN, 'n-1', result))) as unknown;
    expect(checkSeal(before, RUN, 'n-1', envelope)).toEqual({ ok: true });
  });

  it('counts for its own call only: another nonce, a changed value, or a made-up seal is refused', () => {
    const envelope = seal(before, RUN, 'n-1', result);
    expect(checkSeal(before, RUN, 'n-2', envelope)).toMatchObject({ ok: false, reason: expect.stringContaining('does not match') });
    const changed = { ...envelope, sealed: { ...result, outcome: 'applied' } };
    expect(checkSeal(before, RUN, 'n-1', changed)).toMatchObject({ ok: false, reason: expect.stringContaining('does not match') });
    expect(checkSeal(before, RUN, 'n-1', { ...envelope, mac: 'A'.repeat(43) })).toMatchObject({ ok: false });
    // What `temporal activity complete` sends: the bare result, no envelope.
    expect(checkSeal(before, RUN, 'n-1', result)).toEqual({ ok: false, reason: 'it carries no seal' });
  });

  it("counts for its own run only: sealed for a workflow someone else ran, with a real run's nonce, it does not open in that run", () => {
    // Anyone's workflow can schedule the engine's activities, copying the nonce of a real run's pending call.
    const theirs = seal(before, 'default\nattackers-own-workflow', 'n-1', result);
    expect(checkSeal(before, RUN, 'n-1', theirs)).toMatchObject({ ok: false, reason: expect.stringContaining('does not match') });
    expect(checkSeal(before, 'other-namespace\nrun-1', 'n-1', seal(before, RUN, 'n-1', result))).toMatchObject({ ok: false });
  });

  it('from a worker with another ring is refused, naming the key and the setting to fix', () => {
    const elsewhere = ring('k1', { k1: k2 });
    const verdict = checkSeal(elsewhere, RUN, 'n-1', seal(before, RUN, 'n-1', result));
    expect(verdict).toMatchObject({ ok: false, reason: expect.stringContaining('does not match') });
    const unknownId = checkSeal(ring('k9', { k9: k2 }), RUN, 'n-1', seal(before, RUN, 'n-1', result));
    expect(unknownId).toMatchObject({
      ok: false,
      reason: expect.stringContaining(`key k1, which this worker does not hold (every worker needs the same ${RESULT_KEYS_ENV}`),
    });
  });
});

describe('rotating the result keys', () => {
  it('adds the new key, makes it current, then drops the old: each step opens what the one before sealed', () => {
    const start = ring('k1', { k1 });
    const added = ring('k1', { k1, k2 });
    const switched = ring('k2', { k1, k2 });
    const dropped = ring('k2', { k2 });
    // Step 1 (workers roll to `added`): results of workers still on `start`, and theirs, open everywhere.
    expect(checkSeal(added, RUN, 'n', seal(start, RUN, 'n', result)).ok).toBe(true);
    expect(checkSeal(start, RUN, 'n', seal(added, RUN, 'n', result)).ok).toBe(true);
    // Step 2 (`switched`): new results are sealed under k2, which every worker on `added` already holds.
    expect(seal(switched, RUN, 'n', result).keyId).toBe('k2');
    expect(checkSeal(added, RUN, 'n', seal(switched, RUN, 'n', result)).ok).toBe(true);
    expect(checkSeal(switched, RUN, 'n', seal(added, RUN, 'n', result)).ok).toBe(true);
    // Step 3 (`dropped`): a result sealed under k1 arriving now is a claim, so drop k1 only once
    // every activity that started before step 2 has closed (its schedule-to-close timeout).
    expect(checkSeal(dropped, RUN, 'n', seal(switched, RUN, 'n', result)).ok).toBe(true);
    expect(checkSeal(dropped, RUN, 'n', seal(start, RUN, 'n', result)).ok).toBe(false);
  });
});

describe('the ring a worker uses', () => {
  const dir = mkdtempSync(join(tmpdir(), 'result-keys-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is the file AGENT_RESULT_KEYS names, in the payload ring format', () => {
    const path = join(dir, 'ring.json');
    writeFileSync(path, JSON.stringify({ current: 'k2', keys: { k1, k2 } }), { mode: 0o600 });
    const resolved = resolveResultKeys(undefined, { [RESULT_KEYS_ENV]: path });
    expect(resolved.current).toBe('k2');
    expect([...resolved.keys.keys()]).toEqual(['k1', 'k2']);
  });

  it('refuses a named file it cannot use, naming it: a worker must not start with a key no other holds', () => {
    const path = join(dir, 'short.json');
    writeFileSync(path, JSON.stringify({ current: 'k1', keys: { k1: 'c2hvcnQ=' } }), { mode: 0o600 });
    expect(() => resolveResultKeys(undefined, { [RESULT_KEYS_ENV]: path })).toThrow(PayloadKeyRingError);
    expect(() => resolveResultKeys(undefined, { [RESULT_KEYS_ENV]: join(dir, 'missing.json') })).toThrow(/missing\.json: no such file/);
  });

  it('refuses a ring others can read or change, naming its mode; its owner and group may read it', () => {
    const path = join(dir, 'exposed.json');
    writeFileSync(path, JSON.stringify({ current: 'k1', keys: { k1 } }));
    for (const mode of [0o644, 0o604, 0o620, 0o666]) {
      chmodSync(path, mode);
      const read = readKeyRing(path);
      expect(read.ok, mode.toString(8)).toBe(false);
      expect(read.ok ? '' : read.error.message).toContain(`mode ${mode.toString(8)}`);
      expect(() => resolveResultKeys(undefined, { [RESULT_KEYS_ENV]: path })).toThrow(PayloadKeyRingError);
    }
    for (const mode of [0o600, 0o400, 0o640, 0o440]) {
      chmodSync(path, mode);
      expect(readKeyRing(path).ok, mode.toString(8)).toBe(true);
    }
  });

  it('is the one given, over the environment', () => {
    const given = ring('k1', { k1 });
    expect(resolveResultKeys(given, { [RESULT_KEYS_ENV]: join(dir, 'missing.json') })).toBe(given);
  });
});

describe('sealActivities', () => {
  it('seals the results the engine believes under the nonce the workflow sent, and leaves the rest alone', async () => {
    const keys = ring('k1', { k1 });
    const activities = sealActivities(
      keys,
      {
        readback: async (input: { callId: string }) => ({ ...result, callId: input.callId }),
        ping: async (message: string) => `pong ${message}`,
      },
      { callers: 'unchecked' },
    );
    const envelope = await activities.readback({ callId: 'c9', nonce: 'n-9' });
    expect(envelope.sealed.callId).toBe('c9');
    const verdicts = await activities.checkResultSeals({
      items: [
        { nonce: 'n-9', envelope },
        { nonce: 'n-8', envelope },
      ],
    });
    expect(verdicts).toEqual([{ ok: true }, { ok: false, reason: expect.stringContaining('does not match') }]);
    expect(await activities.ping('x')).toBe('pong x');
  });
});

describe('a call with no activity around it', () => {
  it('is refused unless the caller asked for unchecked calls: it has no caller to check, and nothing runs', async () => {
    let sent = 0;
    const activities = sealActivities(ring('k1', { k1 }), {
      invokeTool: async (input: { call: { callId: string } }) => {
        sent++;
        return { status: 'ok', callId: input.call.callId };
      },
    });
    await expect(activities.invokeTool({ call: { callId: 'c1' }, nonce: 'n-1' })).rejects.toMatchObject({ type: 'NotAnAgentRun' });
    expect(sent).toBe(0);
  });
});

describe("the model's reply", () => {
  const keys = ring('k1', { k1 });
  const plan = { type: 'plan', steps: [{ id: 's1', tool: 'send_money', args: { recipient: 'US1', amount: 5 } }] };
  // The spend plugin prices the call around the activity: it adds its cost beside the sealed reply.
  const activities = sealActivities(keys, { propose: async (_input: { proposalIndex: number }) => ({ reply: plan, tokens: 12 }) });

  it('is sealed beside the call, for the nonce the workflow sent, as a read the run carries: the digest of the reply it took', async () => {
    const output = JSON.parse(JSON.stringify({ ...(await activities.propose({ proposalIndex: 0, nonce: 'n-p' })), costMicros: 7 })) as {
      reply: unknown;
      replySeal: { keyId: string; mac: string };
    };
    expect(output).toMatchObject({ reply: plan, tokens: 12, costMicros: 7 });
    const carried = { what: "the planner's reply, turn 1", nonce: 'n-p', digest: digestOf(output.reply), ...output.replySeal };
    expect(checkReads(keys, OUTSIDE, [carried])).toBeUndefined();
    // Another plan under that seal, or the seal for another call, is refused.
    const other = { ...plan, steps: [{ ...plan.steps[0], args: { recipient: 'US2', amount: 5 } }] };
    expect(checkReads(keys, OUTSIDE, [{ ...carried, digest: digestOf(other) }])).toMatch(/does not match/);
    expect(checkReads(keys, OUTSIDE, [{ ...carried, nonce: 'n-q' }])).toMatch(/does not match/);
  });

  it('is not sealed when the workflow sends no nonce (outside shape plan), and the call is otherwise as the adapter gave it', async () => {
    expect(await activities.propose({ proposalIndex: 0 })).toEqual({ reply: plan, tokens: 12 });
  });
});

describe("an effect's activity, carrying the run's reads", () => {
  const keys = ring('k1', { k1 });
  const ledger = { status: 'SETTLED', amountMinor: 1200 };
  const sealed = seal(keys, OUTSIDE, 'n-read', ledger);
  const carried = (value: unknown) => ({ what: 'ledger_status (c2)', nonce: 'n-read', digest: digestOf(value), keyId: sealed.keyId, mac: sealed.mac });

  it('goes ahead when each read is what a worker sealed', () => {
    expect(checkReads(keys, OUTSIDE, [carried(ledger)])).toBeUndefined();
  });

  it('names the read the workflow took in another form than a worker sealed it', () => {
    expect(checkReads(keys, OUTSIDE, [carried({ ...ledger, status: 'FAILED' })])).toBe('ledger_status (c2): its seal does not match it');
  });

  it("sends nothing, and says why, sealed, when a read is not a worker's", async () => {
    let sent = 0;
    const activities = sealActivities(
      keys,
      {
        invokeTool: async (input: { call: { callId: string } }) => {
          sent++;
          return { status: 'ok', callId: input.call.callId };
        },
      },
      { callers: 'unchecked' },
    );
    const refused = await activities.invokeTool({ call: { callId: 'c3' }, nonce: 'n-3', reads: [carried({ ...ledger, status: 'FAILED' })] });
    expect(sent).toBe(0);
    expect(refused.sealed).toMatchObject({ status: 'error', callId: 'c3', errorClass: 'not_sent' });
    expect(checkSeal(keys, OUTSIDE, 'n-3', refused)).toEqual({ ok: true });
    await activities.invokeTool({ call: { callId: 'c4' }, nonce: 'n-4', reads: [carried(ledger)] });
    expect(sent).toBe(1);
  });

  it("asks no probe when a read is not a worker's: the verdict is undecided, sealed, so the run cannot end on it", async () => {
    let asked = 0;
    const activities = sealActivities(
      keys,
      {
        verify: async () => {
          asked++;
          return { holds: true, conflict: false, decided: true, detail: 'settled', facts: {}, checkedAt: 1 };
        },
      },
      { callers: 'unchecked' },
    );
    const refused = await activities.verify({ nonce: 'n-5', reads: [carried({ ...ledger, status: 'FAILED' })] });
    expect(asked).toBe(0);
    expect(refused.sealed).toMatchObject({ holds: false, decided: false, detail: expect.stringContaining('ledger_status (c2)') });
    await activities.verify({ nonce: 'n-6', reads: [carried(ledger)] });
    expect(asked).toBe(1);
  });
});
