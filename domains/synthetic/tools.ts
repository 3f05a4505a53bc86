// The synthetic domain's no-op tools: in memory, no I/O, so benchmarks measure the engine.
import { implement, type ToolContext } from '../../worker/public.js';
import { synthetic } from './domain.js';
import { syntheticPolicy } from './policy.js';

/** Effects applied in this worker process, by idempotency key (what a readback consults). */
const applied = new Map<string, { n: number; effectId: string; appliedAt: string }>();

function applyOnce(args: { n: number }, ctx: ToolContext) {
  const key = ctx.idempotencyKey ?? '';
  const existing = applied.get(key);
  if (existing) return existing;
  const effect = { n: args.n, effectId: `fx-${applied.size + 1}`, appliedAt: new Date().toISOString() };
  applied.set(key, effect);
  return effect;
}

export const syntheticImplementation = implement(synthetic).with({
  tools: {
    read_counter: async (args) => ({ n: args.n, lane: args.lane, asOf: new Date().toISOString(), pad: 'x'.repeat(args.pad) }),
    touch: async (args, ctx) => applyOnce(args, ctx),
    gated_touch: async (args, ctx) => applyOnce(args, ctx),
    dual_touch: async (args, ctx) => applyOnce(args, ctx),
  },
  readbacks: {
    read_touch: async (key) => {
      const effect = applied.get(key);
      return effect ? { applied: true, output: effect } : { applied: false };
    },
  },
  probe: async () => ({ holds: true, conflict: false, decided: true, detail: 'synthetic probe holds', facts: { 'synthetic.done': true } }),
  policy: syntheticPolicy,
});
