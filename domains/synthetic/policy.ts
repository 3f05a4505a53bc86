// The synthetic `rules` model: a fixed rhythm of turns so long runs exercise every path.
// Every 10th turn is an effect, every 3rd a pair of parallel reads, the rest single reads; on
// the last turn the budget allows, it finishes.
import type { CompiledContext } from '../../workflows/public.js';
import { call, finish } from '../policy-helpers.js';

export function syntheticPolicy(context: CompiledContext): unknown {
  const turn = context.runtime.turn;
  if (context.runtime.left.turns <= 0) {
    const latest = context.evidence.at(-1)?.id ?? context.pinned.at(-1)?.evidenceId;
    return finish({ done: true }, latest ? [latest] : []);
  }
  if (turn % 10 === 0) return call({ tool: 'touch', args: { n: turn } });
  if (turn % 3 === 0) return call({ tool: 'read_counter', args: { n: turn, lane: 1 } }, { tool: 'read_counter', args: { n: turn, lane: 2 } });
  return call({ tool: 'read_counter', args: { n: turn } });
}
