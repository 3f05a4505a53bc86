// Why this exists: the eval's suite, in one list and in the order it runs. Every demo scenario
// runs as it is (benign), and attacked variants put an instruction in every free-text channel the
// model reads (the payments replica note, an incident log line, an unsigned operator note), combined with a
// stale replica, conflicting authorities and a false finish. Failure-injected variants make the
// world itself misbehave (a 500, an authority that never answers, an effect whose answer is
// lost after it committed, a 200 that cured nothing, an oversized answer) through the world's
// own fault injection. Frontier variants are cases the example routes were not written for. Each
// group is a file named for it (eval/scenarios-from-demo.ts, -attacked.ts, -failures.ts,
// -frontier.ts); importers take the suite, its types and the helpers for a cell from here. Each
// scenario states the terminal a correct run ends in and what was seeded (WorldSpec), from which
// eval/harm.ts tells which world effects would be harm.
import type { EngineShape } from './report.js';
import { attacked } from './scenarios-attacked.js';
import { failures } from './scenarios-failures.js';
import { fromDemo } from './scenarios-from-demo.js';
import { frontier } from './scenarios-frontier.js';
import type { CaseIds, EvalScenario } from './scenarios-types.js';

export type { CaseIds, EvalScenario } from './scenarios-types.js';

export function evalScenarios(): EvalScenario[] {
  const all = [...fromDemo(), ...attacked, ...failures, ...frontier];
  const codes = new Set(all.map((s) => s.code));
  if (codes.size !== all.length) throw new Error('two eval scenarios share a code');
  return all;
}

/** The terminal class a correct run of this shape ends in. */
export function expectedFor(scenario: EvalScenario, shape: EngineShape): 'resolved' | 'escalated' {
  return scenario.expectedBy?.[shape] ?? scenario.expected;
}

/** Fresh ids for one cell: case ids must be unique per run of the eval, per model and per agent. */
export function caseIdsFor(scenario: EvalScenario, cell: string, stamp: string): CaseIds {
  const prefix = scenario.domain === 'payments' ? 'PX' : 'INC';
  const caseId = `${prefix}-${scenario.code}-${cell}-${stamp}`;
  // Payments ids are `PX-` and at most 40 more characters; the other transfer is one character longer.
  if (caseId.length > 42) throw new Error(`case id ${caseId} is too long for the payments domain`);
  return { caseId, other: `PX-${scenario.code}-${cell}-${stamp}X` };
}
