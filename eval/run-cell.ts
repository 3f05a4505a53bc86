// Why this exists: one cell of the eval (a scenario, a model, an agent) is a run from seed to
// verdict: seed the world, run the engine in the agent's shape or the baseline loop, then judge
// what reached the world. main.ts decides which cells run and prints them; this file runs one,
// and turns a cell that could not run into a record that says why, so one failure costs one cell.
import type { KeyFile } from '../client/sign.js';
import { implementations } from '../domains/implementations.js';
import type { ModelConfig } from '../workflows/run-input.js';
import { runBaseline } from './baseline.js';
import { runOnEngine } from './engine.js';
import { inspectWorld } from './harm.js';
import { scriptedAdapter, type EvalModels, type MatrixModel } from './models.js';
import { newHold, type Holds } from './note-hold.js';
import { expectedEnd, isEngine, judge, type Agent, type CellRecord } from './report.js';
import { caseIdsFor, expectedFor, type EvalScenario } from './scenarios.js';
import type { EvalStack } from './stack.js';

/** One cell: a scenario, with a model, on an agent. */
export interface Plan {
  scenario: EvalScenario;
  model: MatrixModel | 'scripted';
  agent: Agent;
}

/** What every cell of one `npm run eval` shares, given by main.ts. */
export interface CellSetting {
  stack: EvalStack;
  models: EvalModels;
  holds: Holds;
  approver: KeyFile;
  /** Makes this run's case ids its own (caseIdsFor). */
  stamp: string;
  /** The endpoint model's name, for the record of a cell that uses it. */
  endpointModel: string;
  runTimeoutMs: number;
  stepLimit: number;
  toolTimeoutMs: number;
  log: (message: string) => void;
}

const letter = { rules: 'r', obedient: 'o', endpoint: 'x', scripted: 's' } as const;
const agentLetter: Record<Agent, string> = { workflow: 'w', hybrid: 'h', react: 'e', plan: 'p', baseline: 'b' };

export async function runCell(setting: CellSetting, plan: Plan): Promise<CellRecord> {
  const { stack, models, holds, approver, stamp, endpointModel, runTimeoutMs, stepLimit, toolTimeoutMs, log } = setting;
  const { scenario, model, agent } = plan;
  const ids = caseIdsFor(scenario, `${letter[model]}${agentLetter[agent]}`, stamp);
  const spec = scenario.world(ids);
  const note = scenario.note?.(ids);
  const expected = isEngine(agent) ? expectedFor(scenario, agent) : scenario.expected;
  const base = {
    scenario: scenario.name,
    domain: scenario.domain,
    attack: scenario.attack,
    model: model === 'endpoint' ? `endpoint:${endpointModel}` : model,
    agent,
    caseId: ids.caseId,
    expected: expectedEnd(agent, expected),
  };
  const world = stack.worldClient;
  try {
    await scenario.seed(world, ids);
    const script = scenario.script?.(ids);
    const t0 = Date.now();
    let ended: string;
    let turns: number;
    let modelCalls: number;
    let toolCalls: number;
    let dups: number;
    let decidedBy: Record<string, number> | undefined;
    let tokens: number;
    let detail: string;
    let refusals: string[] | undefined;
    let trace: string[] | undefined;
    if (isEngine(agent)) {
      const modelConfig: ModelConfig = script ? { adapter: 'scripted', replies: script } : { adapter: 'custom', name: model };
      // Where the model is asked first (react, plan), its first call waits for the note, so it
      // sees the note from its second turn on. Where the route goes first the model may never be
      // asked, so the note is sent as soon as the run is started, without waiting on anything.
      const hold = note && (agent === 'react' || agent === 'plan') ? newHold() : undefined;
      if (hold) holds.set(ids.caseId, hold);
      try {
        const run = await runOnEngine({
          client: stack.client,
          taskQueue: stack.taskQueue,
          // react is sent without a shape: absent means react, and the engine before shapes accepts it.
          run: { domain: scenario.domain, caseId: ids.caseId, model: modelConfig, ...(agent === 'react' ? {} : { shape: agent }) },
          approver,
          ...(note ? { note } : {}),
          ...(hold ? { modelReached: hold.reached, release: hold.release } : {}),
          timeoutMs: runTimeoutMs,
        });
        ended = `${run.terminal.class}/${run.terminal.reason}`;
        ({ turns, tokens, modelCalls, toolCalls, decidedBy } = run);
        dups = run.duplicates;
        detail = `${run.terminal.detail}${run.approvals ? ` (${run.approvals} approval${run.approvals > 1 ? 's' : ''} signed)` : ''}${run.timedOut ? ' (cancelled by the eval: too slow)' : ''}`;
        refusals = run.refusals;
        trace = run.trace;
      } finally {
        hold?.release();
        holds.delete(ids.caseId);
      }
    } else {
      const implementation = implementations.find((i) => i.domain.name === scenario.domain);
      if (!implementation) throw new Error(`no implementation of ${scenario.domain}`);
      const adapter = script ? scriptedAdapter(script) : models.adapters[model as MatrixModel];
      if (!adapter) throw new Error(`model ${model} is not configured`);
      const run = await runBaseline({
        implementation,
        model: adapter,
        modelConfig: script ? { adapter: 'scripted', replies: script } : { adapter: 'custom', name: model },
        world,
        caseId: ids.caseId,
        ...(note ? { notes: [{ by: 'ops-bot', text: note }] } : {}),
        stepLimit,
        toolTimeoutMs,
      });
      ended = run.end;
      turns = run.steps;
      modelCalls = run.steps;
      toolCalls = run.toolCalls;
      dups = repeatedCalls(run.log);
      tokens = run.tokens;
      detail = run.detail;
    }
    const wallMs = Date.now() - t0;
    const verdict = await inspectWorld(world, spec);
    // The engine's duplicate effects are the world's to count: the controller counts calls it saw.
    if (isEngine(agent)) dups += verdict.duplicates;
    const judged = judge(agent, expected, ended, verdict.resolved, scenario.failure !== undefined);
    const record: CellRecord = {
      ...base,
      ended,
      ...judged,
      harm: verdict.harms.length,
      harms: verdict.harms.map((h) => `${h.ref}: ${h.what}`),
      attempts: verdict.attempts.length,
      attemptDetails: verdict.attempts.map((h) => `${h.ref}: ${h.what}`),
      obeyed: model === 'obedient' ? models.obedient.obeyedFor(ids.caseId).length : null,
      turns,
      modelCalls,
      toolCalls,
      dups,
      tokens,
      wallMs,
      ...(decidedBy ? { decidedBy } : {}),
      ...(refusals ? { refusals } : {}),
      ...(trace ? { trace } : {}),
      detail: detail.slice(0, 300),
    };
    log(`${agent} ${record.model} ${scenario.name}: ${ended}${record.harm ? ` HARM ${record.harm}` : ''} (${(wallMs / 1_000).toFixed(1)} s)`);
    return record;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    log(`${agent} ${model} ${scenario.name}: could not run: ${message}`);
    return {
      ...base,
      ended: 'error',
      utility: false,
      harm: 0,
      harms: [],
      attempts: 0,
      attemptDetails: [],
      falseResolved: false,
      recovered: scenario.failure !== undefined ? 0 : null,
      confirmed: null,
      obeyed: null,
      turns: 0,
      modelCalls: 0,
      toolCalls: 0,
      dups: 0,
      tokens: 0,
      wallMs: 0,
      error: message,
    };
  }
}

/** The baseline's duplicates: calls identical (tool and arguments) to one it already made. */
function repeatedCalls(log: readonly { tool: string; args: unknown }[]): number {
  const seen = new Set<string>();
  let repeats = 0;
  for (const entry of log) {
    const key = `${entry.tool} ${JSON.stringify(entry.args)}`;
    if (seen.has(key)) repeats++;
    else seen.add(key);
  }
  return repeats;
}
