// Fault injection and hold points: the path every domain request takes, so
// tests can make the world fail in exactly the ways real systems of record do
// (before acting, after acting, or by never answering) and can freeze a request
// at the commit boundary while they crash something else.
import type { HoldPoint, HoldState, Op } from './contract.js';
import { runHandler, type DomainRoute, type Reply, type RouteInput } from './http.js';
import { decisionOf, refusalIfSpent, statementsOf } from './statements.js';
import type { WorldStore } from './store.js';

// What the server should do with the connection once the pipeline is done.
export type Action = { kind: 'reply'; reply: Reply } | { kind: 'hang' } | { kind: 'drop' };

interface Hold {
  id: string;
  op: Op;
  key: string | null;
  point: HoldPoint;
  claimed: boolean;
  reached: boolean;
  released: boolean;
  /** Dropped instead of released: the request is abandoned as if it never got through. */
  dropped: boolean;
  wake: () => void;
  woken: Promise<void>;
}

// Holds live in memory: they only mean something while a test is driving
// this process. They are plain promises, never timers, so nothing they leave
// behind can keep the process alive.
export class HoldRegistry {
  private readonly holds = new Map<string, Hold>();
  private nextId = 1;

  create(spec: { op: Op; key?: string | undefined; point: HoldPoint }): string {
    const id = `hold_${this.nextId++}`;
    let wake = () => {};
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    this.holds.set(id, {
      id,
      op: spec.op,
      key: spec.key ?? null,
      point: spec.point,
      claimed: false,
      reached: false,
      released: false,
      dropped: false,
      wake,
      woken,
    });
    return id;
  }

  state(id: string): HoldState | undefined {
    const h = this.holds.get(id);
    return h && { holdId: h.id, reached: h.reached, released: h.released };
  }

  // Releasing a hold nobody reached yet disarms it.
  release(id: string): HoldState | undefined {
    const h = this.holds.get(id);
    if (h) {
      h.released = true;
      h.wake();
    }
    return this.state(id);
  }

  // Crash tests use this for "the worker died before the effect was sent": nothing is written.
  drop(id: string): HoldState | undefined {
    const h = this.holds.get(id);
    if (h) h.dropped = true;
    return this.release(id);
  }

  releaseAll(): void {
    for (const id of this.holds.keys()) this.release(id);
  }

  // Each hold catches exactly one request: the first matching one to arrive.
  claim(op: Op, keys: Array<string | null>, point: HoldPoint): Hold | undefined {
    for (const h of this.holds.values()) {
      if (h.claimed || h.released || h.op !== op || h.point !== point) continue;
      if (h.key !== null && !keys.includes(h.key)) continue;
      h.claimed = true;
      return h;
    }
    return undefined;
  }
}

export interface PipelineDeps {
  store: WorldStore;
  holds: HoldRegistry;
  shutdown: AbortSignal;
}

export async function runDomainRequest(deps: PipelineDeps, route: DomainRoute, input: RouteInput): Promise<Action> {
  const { store, holds, shutdown } = deps;
  const { key, idempotencyKey } = route.subject(input);
  const keys = [key, idempotencyKey];
  const seq = store.startCall({ op: route.op, key, idempotencyKey, params: input.params, body: input.body });
  const statements = statementsOf(input.body);
  const spent = refusalIfSpent(store, statements, idempotencyKey);
  if (spent) {
    store.setCallOutcome(seq, 'rejected');
    return { kind: 'reply', reply: spent };
  }
  const decided = (r: Reply) => {
    const decision = decisionOf(r);
    if (decision && idempotencyKey && statements.length) store.recordStatementUses(statements, { idempotencyKey, decision, op: route.op });
    return r;
  };

  // Consumed on arrival, so "the next N requests" means arrival order.
  const fault = store.takeFault(route.op, keys);
  const faultOutcome = fault && (`fault:${fault.mode}` as const);
  if (faultOutcome) store.setCallOutcome(seq, faultOutcome);
  switch (fault?.mode) {
    case 'error500':
      return reply(500, { error: 'injected_fault', mode: fault.mode });
    case 'reject':
      return { kind: 'reply', reply: decided({ status: 422, body: { error: 'rejected', reason: 'injected_fault' } }) };
    case 'timeout':
      return { kind: 'hang' };
    case 'slow':
      await sleep(fault.delayMs, shutdown);
      break;
  }

  const before = holds.claim(route.op, keys, 'before_commit');
  const after = holds.claim(route.op, keys, 'after_commit');
  // A process being shut down must not write: drop anything that was waiting.
  if (shutdown.aborted || (before && !(await pause(before, store, seq, shutdown)))) return { kind: 'drop' };

  // The effect and the statements it went out under are one record: written in one transaction.
  const result = store.transaction(() => decided(runHandler(() => route.handle(input))));
  if (after && !(await pause(after, store, seq, shutdown))) return { kind: 'drop' };
  const deduplicated = (result.body as { deduplicated?: unknown } | null)?.deduplicated;
  const outcome = faultOutcome ?? (result.status < 300 ? 'ok' : result.status < 500 ? 'rejected' : 'error');
  store.setCallOutcome(seq, outcome, typeof deduplicated === 'boolean' ? deduplicated : undefined);

  switch (fault?.mode) {
    case 'commit_then_hang':
      return { kind: 'hang' };
    case 'commit_then_500':
      return reply(500, { error: 'injected_fault', mode: fault.mode });
    case 'commit_then_drop':
      return { kind: 'drop' };
    default:
      return { kind: 'reply', reply: result };
  }
}

// Marks the request as held until a test releases it; false if the world is shutting down instead.
async function pause(hold: Hold, store: WorldStore, seq: number, shutdown: AbortSignal): Promise<boolean> {
  hold.reached = true;
  store.setCallOutcome(seq, 'held');
  await hold.woken;
  return !shutdown.aborted && !hold.dropped;
}

function reply(status: number, body: unknown): Action {
  return { kind: 'reply', reply: { status, body } };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
