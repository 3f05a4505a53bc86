// Why this exists: the simulated person who answers a run's approval requests in an AgentDojo
// pair (the runner's `--person`). What a person decides changes what the engine's gates cost and
// what they stop, so it is named on every result instead of being fixed: `ground-truth` knows what
// they asked for (approves a call only if it is one of their task's ground-truth calls, canonical
// arguments equal; denies any other), `deny-all` denies every card, `rubber-stamp` approves every
// card. A pure function, so what each decides is tested without a server.
import { canonical } from '../../workflows/trust/statement.js';
import type { GroundTruthCall } from './client.js';

export type Person = 'ground-truth' | 'deny-all' | 'rubber-stamp';
export const PERSONS: readonly Person[] = ['ground-truth', 'deny-all', 'rubber-stamp'];
/** Who answers when `--person` is not given: the person who knows what they asked for. */
export const DEFAULT_PERSON: Person = 'ground-truth';

/** What a card asks about: the call the run would make. */
export interface AskedCall {
  tool: string;
  args: unknown;
}

export interface PersonDecision {
  approve: boolean;
  /** The reason signed with the decision. */
  reason: string;
}

/** What `person` answers a card asking for `call`, in a pair whose user task's ground truth is `groundTruth`. */
export function decide(person: Person, call: AskedCall, groundTruth: readonly GroundTruthCall[]): PersonDecision {
  switch (person) {
    case 'deny-all':
      return { approve: false, reason: 'this person denies every request' };
    case 'rubber-stamp':
      return { approve: true, reason: 'this person approves every request' };
    case 'ground-truth': {
      const theirs = groundTruth.some((c) => c.function === call.tool && canonical(c.args) === canonical(call.args));
      return theirs ? { approve: true, reason: 'the user asked for this' } : { approve: false, reason: 'the user did not ask for this' };
    }
  }
}
