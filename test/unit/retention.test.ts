// Retention keeps RunState bounded however long a run lasts, without losing anything still in
// use. Driven by a long synthetic run through the pure controller (bench/shape.ts), no server.
import { describe, expect, it } from 'vitest';
import { simulateRun } from '../../bench/shape.js';
import { KEEP } from '../../workflows/controller/bounds.js';
import { RunState } from '../../workflows/controller/state.js';
import { callsInFlight } from '../support/phase.js';

const TURNS = 2_000;

describe('retention over a long run', async () => {
  const sizeAt = new Map<number, number>();
  const states: RunState[] = [];
  await simulateRun({
    turns: TURNS,
    onState: (state) => {
      states.push(state);
      sizeAt.set(state.turn, JSON.stringify(state).length);
    },
  });
  const steady = states.filter((s) => s.turn > 500);

  it('stays under every limit, and its size stops growing', () => {
    expect(steady.length).toBeGreaterThan(1_000);
    for (const s of steady) {
      const referenced = new Set([...Object.values(s.pinned).map((p) => p.evidenceId), ...s.effects.flatMap((e) => (e.evidenceId ? [e.evidenceId] : []))]);
      expect(s.evidence.length).toBeLessThanOrEqual(KEEP.evidence + referenced.size);
      expect(s.transcript.length).toBeLessThanOrEqual(KEEP.transcript + KEEP.notes);
      expect(s.decisions.length).toBeLessThanOrEqual(KEEP.decisions);
      expect(s.executions.length).toBeLessThanOrEqual(KEEP.executions);
      expect(s.effects.filter((e) => e.status !== 'in_flight' && e.status !== 'unknown').length).toBeLessThanOrEqual(KEEP.settledEffects);
      expect(Object.keys(s.seen).length).toBeLessThanOrEqual(KEEP.seen);
      // Every effect kept keeps its approval record, so an export of any moment verifies.
      expect(s.approvals.length).toBeLessThanOrEqual(KEEP.approvals + KEEP.settledEffects);
      const recorded = new Set(s.approvals.map((a) => a.callId));
      const approvedCalls = new Set(states.flatMap((st) => st.approvals.map((a) => a.callId)));
      for (const e of s.effects) if (approvedCalls.has(e.callId)) expect(recorded.has(e.callId)).toBe(true);
    }
    const at1000 = sizeAt.get(1_000) ?? 0;
    const atEnd = sizeAt.get(TURNS - 1) ?? 0;
    expect(at1000).toBeGreaterThan(0);
    expect(atEnd / at1000).toBeLessThan(1.1);
    expect(atEnd).toBeLessThan(256 * 1024);
  });

  it('drops old records only by counting them: kept + dropped is everything that happened', () => {
    for (const s of steady) {
      // One decision receipt per proposal, and proposals are numbered by turn from 1.
      expect(s.decisions.length + s.dropped.decisions).toBe(s.decisions.at(-1)?.turn);
      // Calls are charged when admitted and get their receipt when they return; probes (the
      // run's check of a claimed finish) get a receipt but are not tool calls.
      const probes = s.executions.filter((e) => e.kind === 'probe').length;
      expect(s.executions.length - probes + s.dropped.executions).toBe(s.used.toolCalls - callsInFlight(s).length);
    }
    const last = steady.at(-1) as RunState;
    expect(last.dropped.decisions).toBeGreaterThan(1_000);
    expect(last.dropped.evidence).toBeGreaterThan(1_000);
  });

  it('never drops evidence that a pinned fact or an effect still points at', () => {
    for (const s of steady) {
      const kept = new Set(s.evidence.map((e) => e.id));
      for (const fact of Object.values(s.pinned)) expect(kept.has(fact.evidenceId)).toBe(true);
      for (const effect of s.effects) if (effect.evidenceId) expect(kept.has(effect.evidenceId)).toBe(true);
    }
  });

  it('keeps the most recently used call signatures for the loop guard', () => {
    for (const [i, s] of steady.entries()) {
      const before = steady[i - 1];
      if (!before || s.executions.length === 0) continue;
      // What was just observed is remembered, and a signature is only ever forgotten from the old end.
      const keys = Object.keys(s.seen);
      const previous = Object.keys(before.seen);
      const forgotten = previous.filter((k) => !(k in s.seen));
      expect(forgotten).toEqual(previous.slice(0, forgotten.length));
      expect(keys.length).toBeGreaterThan(0);
    }
  });

  it('hands out states that still validate and survive JSON', () => {
    const last = steady.at(-1) as RunState;
    expect(RunState.parse(JSON.parse(JSON.stringify(last)))).toEqual(last);
  });
});
