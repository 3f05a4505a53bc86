// Why this exists: `npm run eval` measures what the engine buys over the loop people usually
// write. Every scenario of eval/scenarios.ts (the demo's, and attacked variants) runs with every
// model (`rules`, the `obedient` adversary, and an OpenAI-compatible endpoint when given) on five
// agents: this engine in each of its execution shapes (`workflow`, `hybrid`, `react`, `plan`;
// real dev server, world and worker; an approver who signs everything) and the naive baseline
// loop (same model, same tools, same world, no guard rails). Each cell is judged by the world's
// own records. Prints a table per cell and per model, writes
// .eval/latest.json (ignored by git, so a look around leaves the clone clean; --update-results
// writes the tracked eval/results/latest.json instead), and ends with exactly one summary line.
//
//   npx tsx eval/main.ts [--endpoint URL [--model NAME]] [--models rules,obedient,endpoint]
//                        [--agents workflow,hybrid,react,plan,baseline] [--only name,name] [--concurrency N]
//                        [--steps N] [--run-timeout-s N] [--model-delay-s N] [--out FILE | --update-results]
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { ModelAdapter } from '../activities/model/index.js';
import { directoryEntry, generateKey } from '../client/sign.js';
import { implementations } from '../domains/implementations.js';
import type { ModelConfig } from '../workflows/run-input.js';
import { runBaseline } from './baseline.js';
import { runOnEngine } from './engine.js';
import { inspectWorld } from './harm.js';
import { createEvalModels, scriptedAdapter, type MatrixModel } from './models.js';
import { AGENTS, cellTable, expectedEnd, isEngine, judge, parseAgents, summaryLine, summaryTable, type Agent, type CellRecord } from './report.js';
import { caseIdsFor, evalScenarios, expectedFor, type EvalScenario } from './scenarios.js';
import { resultsFile } from './results-file.js';
import { startEvalStack, type EvalStack } from './stack.js';

const { values } = parseArgs({
  options: {
    endpoint: { type: 'string' },
    model: { type: 'string' },
    models: { type: 'string' },
    agents: { type: 'string', default: 'workflow,hybrid,react,plan,baseline' },
    only: { type: 'string' },
    concurrency: { type: 'string', default: '6' },
    steps: { type: 'string', default: '12' },
    'run-timeout-s': { type: 'string' },
    'model-delay-s': { type: 'string' },
    out: { type: 'string' },
    'update-results': { type: 'boolean', default: false },
  },
  strict: true,
});
if (values.out !== undefined && values['update-results']) throw new Error('give --out FILE or --update-results, not both');

const log = (message: string) => process.stderr.write(`[eval] ${message}\n`);
const out = (line: string) => process.stdout.write(`${line}\n`);
const list = (raw: string | undefined) =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const positive = (raw: string | undefined, name: string): number => {
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return n;
};

const endpointUrl = values.endpoint?.trim();
if (endpointUrl !== undefined && !URL.canParse(endpointUrl))
  throw new Error(`--endpoint must be a URL such as http://127.0.0.1:11434/v1, got ${JSON.stringify(endpointUrl)}`);
const endpointModel = values.model ?? process.env.OPENAI_MODEL ?? 'gpt-4o-mini';
const matrixModels = (values.models ? list(values.models) : ['rules', 'obedient', ...(endpointUrl ? ['endpoint'] : [])]) as MatrixModel[];
for (const m of matrixModels) {
  if (!['rules', 'obedient', 'endpoint'].includes(m)) throw new Error(`unknown model ${m}: rules, obedient or endpoint`);
  if (m === 'endpoint' && !endpointUrl) throw new Error('the endpoint model needs --endpoint URL');
}
const agents = parseAgents(list(values.agents));
if (agents.length === 0) throw new Error('--agents names no agent');
const concurrency = positive(values.concurrency, 'concurrency');
const stepLimit = positive(values.steps, 'steps');
const runTimeoutMs = positive(values['run-timeout-s'] ?? (endpointUrl ? '900' : '120'), 'run-timeout-s') * 1_000;
const TOOL_TIMEOUT_MS = 3_000;

const only = list(values.only);
const scenarios = evalScenarios().filter((s) => only.length === 0 || only.includes(s.name));
if (scenarios.length === 0) throw new Error(`no scenario matches --only ${values.only}`);

Runtime.install({ logger: new DefaultLogger('WARN') });
const models = createEvalModels(
  implementations,
  endpointUrl
    ? {
        baseUrl: endpointUrl,
        model: endpointModel,
        // Local servers ignore the key, but the client insists on one. Never written anywhere.
        apiKey: process.env.OPENAI_API_KEY?.trim() || 'not-needed',
        timeoutMs: Number(process.env.OPENAI_TIMEOUT_MS ?? 60_000),
        maxTokens: Number(process.env.OPENAI_MAX_TOKENS ?? 1_024),
        render: process.env.OPENAI_RENDER?.trim() === 'document' ? 'document' : 'chat',
        ...(values['model-delay-s'] !== undefined ? { delayMs: positive(values['model-delay-s'], 'model-delay-s') * 1_000 } : {}),
      }
    : undefined,
);

// A case with a note: its first model call signals that it was reached and then waits until the
// note is in. The note is sent only once that call was reached, so it always arrives after the
// first turn's context was compiled, and every model sees it from the engine's second turn on.
interface Hold {
  reached: Promise<void>;
  signalReached: () => void;
  released: Promise<void>;
  release: () => void;
}
const holds = new Map<string, Hold>();
const held =
  (adapter: ModelAdapter): ModelAdapter =>
  async (input, domain) => {
    const hold = holds.get(input.caseId);
    if (hold) {
      hold.signalReached();
      await hold.released;
    }
    return adapter(input, domain);
  };
const custom: Record<string, ModelAdapter> = {};
for (const [name, adapter] of Object.entries(models.adapters)) if (adapter) custom[name] = held(adapter);

const approver = generateKey('eval-approver@ops');
const started = Date.now();
const stamp = started.toString(36);

interface Plan {
  scenario: EvalScenario;
  model: MatrixModel | 'scripted';
  agent: Agent;
}
// A failure-injected scenario without injected text runs with `rules` only (see EvalScenario.rulesOnly);
// an endpoint model, when asked for, still runs it.
const modelsOf = (scenario: EvalScenario): readonly (MatrixModel | 'scripted')[] =>
  scenario.script ? ['scripted'] : scenario.rulesOnly ? matrixModels.filter((m) => m !== 'obedient') : matrixModels;
const plans: Plan[] = scenarios.flatMap((scenario) => modelsOf(scenario).flatMap((model) => agents.map((agent) => ({ scenario, model, agent }))));
const letter = { rules: 'r', obedient: 'o', endpoint: 'x', scripted: 's' } as const;
const agentLetter: Record<Agent, string> = { workflow: 'w', hybrid: 'h', react: 'e', plan: 'p', baseline: 'b' };

let stack: EvalStack | undefined;
let cells: CellRecord[] = [];
// Ctrl-C still stops what this process started (server, world, worker), by handle and pid.
const onSignal = (signal: NodeJS.Signals) => {
  log(`${signal}: stopping what the eval started`);
  void (stack?.close() ?? Promise.resolve()).finally(() => process.exit(130));
};
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);
try {
  log(`starting the dev server, world and worker; ${plans.length} cells (${scenarios.length} scenarios × models × ${agents.join('/')})`);
  stack = await startEvalStack({
    models: { custom },
    approvers: { approvers: [directoryEntry(approver, ['payments-approver'])] },
    toolTimeoutMs: TOOL_TIMEOUT_MS,
    log: (m) => log(`temporal-dev: ${m}`),
  });
  const ready = stack;
  // The engine's cells first (every shape in one pool, so they share the same load), then the
  // baseline's, so neither is timed under the other's load.
  for (const phase of [plans.filter((p) => isEngine(p.agent)), plans.filter((p) => !isEngine(p.agent))]) {
    cells = cells.concat(await pool(phase, concurrency, (plan) => runCell(ready, plan)));
  }
} finally {
  if (stack) await stack.close();
}

cells.sort((a, b) => order(a) - order(b));
const wallMs = Date.now() - started;
const outFile = resultsFile({ out: values.out, updateResults: values['update-results'] });
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(
  outFile,
  `${JSON.stringify(
    {
      startedAt: new Date(started).toISOString(),
      wallMs,
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryMiB: Math.round(totalmem() / 2 ** 20), node: process.version },
      options: {
        models: matrixModels,
        agents,
        ...(endpointUrl ? { endpoint: redact(endpointUrl), endpointModel } : {}),
        stepLimit,
        concurrency,
        runTimeoutMs,
        toolTimeoutMs: TOOL_TIMEOUT_MS,
        ...(values['model-delay-s'] !== undefined ? { modelDelayS: Number(values['model-delay-s']) } : {}),
        only,
      },
      scenarios: scenarios.map((s) => ({
        name: s.name,
        domain: s.domain,
        attack: s.attack,
        story: s.story,
        expected: s.expected,
        ...(s.expectedBy ? { expectedBy: s.expectedBy } : {}),
        ...(s.failure ? { failure: s.failure } : {}),
        model: s.script ? 'scripted' : s.rulesOnly ? 'rules' : 'matrix',
      })),
      cells,
      summary: summaryLine(cells),
    },
    null,
    2,
  )}\n`,
);

out('');
for (const line of cellTable(cells)) out(line);
out('');
for (const line of summaryTable(cells)) out(line);
out('');
out(`${cells.length} cells in ${(wallMs / 1_000).toFixed(1)} s; results in ${outFile}`);
out(summaryLine(cells));
const engineHarm = cells.filter((c) => isEngine(c.agent)).reduce((n, c) => n + c.harm, 0);
process.exit(cells.some((c) => c.error) || engineHarm > 0 ? 1 : 0);

// ---------------------------------------------------------------------------------------------

async function runCell(stack: EvalStack, plan: Plan): Promise<CellRecord> {
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
        toolTimeoutMs: TOOL_TIMEOUT_MS,
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

function newHold(): Hold {
  let signalReached = () => {};
  let release = () => {};
  const reached = new Promise<void>((r) => (signalReached = r));
  const released = new Promise<void>((r) => (release = r));
  return { reached, signalReached, released, release };
}

async function pool<T, R>(items: readonly T[], limit: number, f: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await f(items[i] as T);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** Table order: scenario as listed, then model, then agent (the shapes, then the baseline). */
function order(c: CellRecord): number {
  const s = scenarios.findIndex((x) => x.name === c.scenario);
  const m = ['rules', 'obedient', 'scripted'].indexOf(c.model);
  return s * 100 + (m < 0 ? 9 : m) * 10 + AGENTS.indexOf(c.agent);
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

function redact(url: string): string {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  return u.toString();
}
