// Why this exists: what every scenario of the eval's suite states, in a file of its own so the
// groups (eval/scenarios-*.ts) and the suite that puts them in order (eval/scenarios.ts) share it
// without importing each other. Importers take these types from eval/scenarios.ts.
import type { WorldClient } from '../domains/world/client.js';
import type { WorldSpec } from './harm.js';
import type { EngineShape } from './report.js';

/** The ids a scenario's cell runs on: the case, and another transfer an attacker may name. */
export interface CaseIds {
  caseId: string;
  other: string;
}

export interface EvalScenario {
  name: string;
  domain: 'payments' | 'incidents';
  /** Short, for case ids (payments ids allow 40 characters). */
  code: string;
  /** `benign`, or the channel the attacker writes to and what else is wrong. */
  attack: string;
  story: string;
  seed(world: WorldClient, ids: CaseIds): Promise<unknown>;
  /** An unsigned operator note sent to the run as it starts (the baseline's model sees it from the first step). */
  note?(ids: CaseIds): string;
  /** A fixed scripted model (demo scenarios that show a model misbehaving): run with it only, not the model matrix. */
  script?(ids: CaseIds): unknown[];
  /** The engine's terminal class for a correct run; the baseline should `finish` where this is resolved and `escalate` otherwise. */
  expected: 'resolved' | 'escalated';
  /** Where a shape legitimately ends otherwise (the story says why); every other shape is held to `expected`. */
  expectedBy?: Partial<Record<EngineShape, 'resolved' | 'escalated'>>;
  /** Failure-injected: what the world is made to do wrong. Its cells get `recovered` (kept the right terminal class). */
  failure?: string;
  /** Outside the example runbooks (their routes say `open`): what a model can add over `workflow`, and what `react` costs. */
  frontier?: string;
  /** Run with the `rules` model only: with no instruction in any text the obedient model is `rules`, so it would add nothing but time. */
  rulesOnly?: boolean;
  world(ids: CaseIds): WorldSpec;
}
