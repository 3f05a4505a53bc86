// Why this exists: a scenario's unsigned note must reach a model that is asked first (react,
// plan) after its first turn and in time for its second, on any machine. The adapters the
// worker is given are wrapped here, so that a cell can hold its case's first model call until
// the note is in: main.ts wraps them, run-cell.ts holds and releases.
import type { ModelAdapter } from '../activities/model/index.js';

// A case with a note: its first model call signals that it was reached and then waits until the
// note is in. The note is sent only once that call was reached, so it always arrives after the
// first turn's context was compiled, and every model sees it from the engine's second turn on.
export interface Hold {
  reached: Promise<void>;
  signalReached: () => void;
  released: Promise<void>;
  release: () => void;
}
/** The holds of the cells running now, by case id. */
export type Holds = Map<string, Hold>;

export const held =
  (holds: Holds, adapter: ModelAdapter): ModelAdapter =>
  async (input, domain) => {
    const hold = holds.get(input.caseId);
    if (hold) {
      hold.signalReached();
      await hold.released;
    }
    return adapter(input, domain);
  };

export function newHold(): Hold {
  let signalReached = () => {};
  let release = () => {};
  const reached = new Promise<void>((r) => (signalReached = r));
  const released = new Promise<void>((r) => (release = r));
  return { reached, signalReached, released, release };
}
