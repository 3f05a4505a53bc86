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
import { createEvalModels, type MatrixModel } from './models.js';
import { held, type Holds } from './note-hold.js';
import { AGENTS, cellTable, isEngine, parseAgents, summaryLine, summaryTable, type CellRecord } from './report.js';
import { runCell, type CellSetting, type Plan } from './run-cell.js';
import { evalScenarios, type EvalScenario } from './scenarios.js';
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

const holds: Holds = new Map();
const custom: Record<string, ModelAdapter> = {};
for (const [name, adapter] of Object.entries(models.adapters)) if (adapter) custom[name] = held(holds, adapter);

const approver = generateKey('eval-approver@ops');
const started = Date.now();
const stamp = started.toString(36);

// A failure-injected scenario without injected text runs with `rules` only (see EvalScenario.rulesOnly);
// an endpoint model, when asked for, still runs it.
const modelsOf = (scenario: EvalScenario): readonly (MatrixModel | 'scripted')[] =>
  scenario.script ? ['scripted'] : scenario.rulesOnly ? matrixModels.filter((m) => m !== 'obedient') : matrixModels;
const plans: Plan[] = scenarios.flatMap((scenario) => modelsOf(scenario).flatMap((model) => agents.map((agent) => ({ scenario, model, agent }))));

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
  const setting: CellSetting = { stack, models, holds, approver, stamp, endpointModel, runTimeoutMs, stepLimit, toolTimeoutMs: TOOL_TIMEOUT_MS, log };
  // The engine's cells first (every shape in one pool, so they share the same load), then the
  // baseline's, so neither is timed under the other's load.
  for (const phase of [plans.filter((p) => isEngine(p.agent)), plans.filter((p) => !isEngine(p.agent))]) {
    cells = cells.concat(await pool(phase, concurrency, (plan) => runCell(setting, plan)));
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

function redact(url: string): string {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  return u.toString();
}
