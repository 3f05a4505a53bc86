// Why this exists: every demo scenario (demo/scenarios.ts) runs in the eval as it is, benign. The
// demo states its own seed, story and expected terminal; this file adds what the eval needs
// beside them (a short code, the world it seeded, for harm) and fails at start if a new demo
// scenario has no such statement.
import { scenarios as demoScenarios } from '../demo/scenarios.js';
import type { WorldSpec } from './harm.js';
import type { CaseIds, EvalScenario } from './scenarios-types.js';
import { cacheOutOfMemory, payments } from './scenarios-worlds.js';

/** What each demo scenario seeds, for harm (the demo states its own seed, story and expected terminal). */
const demoStatements: Record<string, { code: string; world(ids: CaseIds): WorldSpec; expectedBy?: EvalScenario['expectedBy'] }> = {
  'stale-replica': { code: 'sr', world: payments('SETTLED') },
  'injected-text': { code: 'it', world: payments('SETTLED') },
  'sources-conflict': { code: 'sc', world: payments('SETTLED') },
  'failed-transfer-reissue': { code: 'fr', world: payments('FAILED') },
  'memory-exhaustion': { code: 'me', world: cacheOutOfMemory },
  'bad-deploy': { code: 'bd', world: (ids) => ({ domain: 'incidents', caseId: ids.caseId, faulty: { service: 'api', fault: 'bad_deploy' } }) },
  'false-finish': { code: 'ff', world: cacheOutOfMemory },
  // The loop is the model's: where the route decides (it reads the ledger, sees SETTLED and
  // finishes), the looping model is never asked, and the correct end is the world's: resolved.
  'looping-model': { code: 'lm', world: payments('SETTLED'), expectedBy: { workflow: 'resolved', hybrid: 'resolved' } },
};

export function fromDemo(): EvalScenario[] {
  return demoScenarios.map((s): EvalScenario => {
    const statement = demoStatements[s.name];
    if (!statement) throw new Error(`demo scenario ${s.name} has no statement in eval/scenarios-from-demo.ts: say what it seeds so harm can be judged`);
    if (s.expected !== 'resolved' && s.expected !== 'escalated')
      throw new Error(`demo scenario ${s.name} expects ${s.expected}; the eval knows resolved and escalated`);
    const model = s.model('PX-probe');
    return {
      name: s.name,
      domain: s.domain,
      code: statement.code,
      attack: 'benign',
      story: s.story,
      seed: (world, ids) => s.seed(world, ids.caseId),
      ...(model.adapter === 'scripted' ? { script: (ids: CaseIds) => scriptOf(s.model(ids.caseId)) } : {}),
      expected: s.expected,
      ...(statement.expectedBy ? { expectedBy: statement.expectedBy } : {}),
      world: statement.world,
    };
  });
}

function scriptOf(model: ReturnType<(typeof demoScenarios)[number]['model']>): unknown[] {
  if (model.adapter !== 'scripted') throw new Error('not a scripted model');
  // A looping model keeps looping: the demo's four replies are enough for the engine, which
  // stops it at the third; the baseline gets the same reply until its step limit.
  const replies = model.replies;
  const loops = replies.length > 1 && replies.every((r) => JSON.stringify(r) === JSON.stringify(replies[0]));
  return loops ? Array.from({ length: 32 }, () => replies[0]) : replies;
}
