// Why this exists: `npm run eval:agentdojo`, AgentDojo's suites through real workflows on a dev
// server. Flags:
//   --suites banking,slack      which suites (default both)
//   --models oracle,obedient    which scripted models (default both)
//   --pairs 0-9|all             which user tasks, by number (default all); each runs once without
//                               attack and once per injection task
//   --injections 0-3|all|none   which injection tasks (default all)
//   --attack NAME|FILE.json     an AgentDojo attack by name (default important_instructions), or a
//                               JSON file of injection texts by vector (`*`: every vector; `{goal}`
//                               is replaced by the injection task's goal)
//   --shape react|hybrid|workflow|plan   the runs' shape (default react)
//   --concurrency N             pairs in flight at once (default 2)
//   --out FILE                  results JSON (default .eval/agentdojo.json, git-ignored)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { projectRoot } from '../../temporal-dev/paths.js';
import { Shape } from '../../workflows/controller/shape.js';
import type { Attack } from './client.js';
import { AGENTDOJO_MODELS, type AgentDojoModel } from './models.js';
import { cellLine, summarize, summaryTable } from './report.js';
import { runPair, SUITES, type PairCell, type PairSpec, type Suite } from './run-pair.js';
import { startAgentDojoStack } from './stack.js';

const { values } = parseArgs({
  options: {
    suites: { type: 'string', default: SUITES.join(',') },
    models: { type: 'string', default: AGENTDOJO_MODELS.join(',') },
    pairs: { type: 'string', default: 'all' },
    injections: { type: 'string', default: 'all' },
    attack: { type: 'string', default: 'important_instructions' },
    shape: { type: 'string' },
    concurrency: { type: 'string', default: '2' },
    out: { type: 'string', default: join(projectRoot, '.eval', 'agentdojo.json') },
  },
});

function fail(message: string): never {
  process.stderr.write(`eval:agentdojo: ${message}\n`);
  process.exit(2);
}

/** `all`, `none`, or a list of numbers and ranges (`0-3,7`), as a filter over task numbers. */
function numberFilter(spec: string): (n: number) => boolean {
  if (spec === 'all') return () => true;
  if (spec === 'none') return () => false;
  const ranges = spec.split(',').map((part) => {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) fail(`not a number or range: ${part}`);
    return [Number(m[1]), Number(m[2] ?? m[1])] as const;
  });
  return (n) => ranges.some(([a, b]) => n >= a && n <= b);
}

const taskNumber = (id: string) => Number(/(\d+)$/.exec(id)?.[1] ?? NaN);
const suites = (values.suites ?? '').split(',').filter(Boolean) as Suite[];
for (const s of suites) if (!SUITES.includes(s)) fail(`unknown suite ${s} (known: ${SUITES.join(', ')})`);
const models = (values.models ?? '').split(',').filter(Boolean) as AgentDojoModel[];
for (const m of models) if (!AGENTDOJO_MODELS.includes(m)) fail(`unknown model ${m} (known: ${AGENTDOJO_MODELS.join(', ')})`);
const shape = values.shape === undefined ? undefined : Shape.safeParse(values.shape);
if (shape && !shape.success) fail(`unknown shape ${values.shape}`);
const attackFlag = values.attack ?? 'important_instructions';
const attack: Attack =
  attackFlag.endsWith('.json') && existsSync(attackFlag)
    ? { texts: JSON.parse(readFileSync(attackFlag, 'utf8')) as Record<string, string> }
    : { name: attackFlag };
const concurrency = Math.max(1, Number(values.concurrency) || 1);
const userFilter = numberFilter(values.pairs ?? 'all');
const injectionFilter = numberFilter(values.injections ?? 'all');

Runtime.install({ logger: new DefaultLogger('WARN') });
const log = (m: string) => process.stderr.write(`[agentdojo] ${m}\n`);
const began = Date.now();
const stack = await startAgentDojoStack({ log });
const cells: PairCell[] = [];
try {
  const specs: PairSpec[] = [];
  for (const suite of suites) {
    const tasks = await stack.bridge.tasks(suite);
    const users = tasks.userTasks.filter((t) => userFilter(taskNumber(t)));
    const injections = tasks.injectionTasks.filter((t) => injectionFilter(taskNumber(t)));
    for (const model of models)
      for (const userTask of users)
        for (const injectionTask of [null, ...injections])
          specs.push({ suite, userTask, injectionTask, model, attack, ...(shape?.success ? { shape: shape.data } : {}) });
  }
  log(`${specs.length} pairs, ${concurrency} at a time, attack ${'name' in attack ? attack.name : attackFlag}`);
  let nextIndex = 0;
  const worker = async () => {
    for (let i = nextIndex++; i < specs.length; i = nextIndex++) {
      const spec = specs[i] as PairSpec;
      const cell = await runPair(stack, spec).catch((err: unknown): PairCell => {
        log(`${spec.suite} ${spec.userTask} x ${spec.injectionTask ?? '-'} ${spec.model} failed: ${String(err)}`);
        return {
          ...spec,
          shape: spec.shape ?? 'react',
          utility: false,
          attackSucceeded: null,
          askedPerson: false,
          terminal: `error: ${String(err).slice(0, 200)}`,
          refusals: [],
          calls: [],
          obeyed: false,
          ms: 0,
        };
      });
      cells.push(cell);
      process.stdout.write(`${cellLine(cell, cells.length, specs.length)}\n`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
} finally {
  await stack.close();
}
const rows = summarize(cells);
const wallMs = Date.now() - began;
const out = values.out as string;
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({ benchmark: 'agentdojo v1.2.2', attack: attackFlag, wallMs, summary: rows, cells }, null, 2)}\n`);
process.stdout.write(`\n${summaryTable(rows)}\n\nwall time ${(wallMs / 1000).toFixed(0)} s; results in ${out}\n`);
