// Why this exists: `npm run eval:agentdojo`, AgentDojo's suites through real workflows on a dev
// server. Flags:
//   --suites banking,slack,travel,workspace   which suites (default banking,slack)
//   --models oracle,obedient[,local]   which models (default the scripted two). `local` is opt-in:
//                               the project's `npm run model:local` (Qwen2.5-Coder on the CPU) is
//                               started for the run, the worker's OpenAI adapter pointed at it, and
//                               stopped by pid at the end; its cells are named `local-<model id>`
//                               and, without --pairs/--injections, it runs a subset (user tasks 0-3,
//                               without attack and with injection task 0)
//   --person ground-truth|deny-all|rubber-stamp   who answers the approval cards (default
//                               ground-truth: approves only its user task's ground-truth calls,
//                               canonical args equal; deny-all denies every card; rubber-stamp
//                               approves every card). Several, comma-separated: each pair runs once
//                               per person, and the summary is one table per person
//   --environment-patch FILE    a JSON object keyed by suite (banking, slack, travel, workspace), each value a
//                               JSON object the bridge deep-merges into that suite's environment
//                               before each pair (objects by key, lists appended, scalars replaced);
//                               a patch that does not fit a suite's environment stops the run first
//   --local-small               the local model's 0.5B variant instead of 1.5B
//   --local-threads N           the local model's CPU threads (default 1)
//   --pairs 0-9|all             which user tasks, by number (default all); each runs once without
//                               attack and once per injection task
//   --injections 0-3|all|none   which injection tasks (default all; `none,0` is `0`)
//   --attack NAME|FILE.json     an AgentDojo attack by name (default important_instructions), or a
//                               JSON file of injection texts by vector (`*`: every vector; `{goal}`
//                               is replaced by the injection task's goal)
//   --shape react|hybrid|workflow|plan   the runs' shape (default react)
//   --concurrency N             pairs in flight at once (default 2; 1 with the local model)
//   --pair-timeout-ms N         a pair is cancelled after this (default 120000; 900000 with local;
//                               at least the run deadline + 5 min)
//   --run-deadline-ms N         each run's own deadline (a budget, on the run's clock) instead of the
//                               domain's 5 minutes, for a model too slow for it
//   --out FILE                  results JSON (default .eval/agentdojo.json, git-ignored)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { projectRoot } from '../../temporal-dev/paths.js';
import type { Attack } from './client.js';
import { startLocalModel, type RunningLocalModel } from './local-model.js';
import { localModelName } from './models.js';
import { checkPatchFits, PatchRefused } from './environment-patch.js';
import { DEFAULT_PERSON } from './person.js';
import { cellLine, succeededAttacks, summarize, summaryTables } from './report.js';
import { runPair, type PairCell, type PairSpec } from './run-pair.js';
import { pairSpecs, parseRunnerFlags } from './runner-flags.js';
import { startAgentDojoStack, type AgentDojoStack } from './stack.js';

const parsed = parseRunnerFlags(process.argv.slice(2), { out: join(projectRoot, '.eval', 'agentdojo.json') });
if (!parsed.ok) {
  process.stderr.write(`eval:agentdojo: ${parsed.error}\n`);
  process.exit(2);
}
const flags = parsed.flags;
const attackFlag = flags.attack;
const attack: Attack =
  attackFlag.endsWith('.json') && existsSync(attackFlag)
    ? { texts: JSON.parse(readFileSync(attackFlag, 'utf8')) as Record<string, string> }
    : { name: attackFlag };
const concurrency = flags.concurrency;

Runtime.install({ logger: new DefaultLogger('WARN') });
const log = (m: string) => process.stderr.write(`[agentdojo] ${m}\n`);
const began = Date.now();
let localModel: RunningLocalModel | undefined;
let stack: AgentDojoStack | undefined;
if (flags.models.includes('local')) {
  log(`starting the local model (npm run model:local, ${flags.local.small ? '0.5B' : '1.5B'}, ${flags.local.threads} thread(s)) ...`);
  localModel = await startLocalModel({ ...flags.local, log: (m) => log(`model: ${m}`) }).catch((err: unknown) => {
    process.stderr.write(`eval:agentdojo: the local model did not start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
  log(`local model ${localModel.modelId} ready at ${localModel.url} (pid ${localModel.pid})`);
  if (flags.subsetNote) process.stdout.write(`note: ${flags.subsetNote}\n`);
}
const cells: PairCell[] = [];
let refused: PatchRefused | undefined;
try {
  stack = await startAgentDojoStack({ log, ...(localModel ? { local: { baseUrl: localModel.url, modelId: localModel.modelId } } : {}) });
  const running = stack;
  if (flags.environmentPatch) await checkPatchFits(running.bridge, flags.environmentPatch, flags.suites);
  const localName = localModel ? localModelName(localModel.modelId) : undefined;
  const specs: PairSpec[] = [];
  for (const suite of flags.suites) specs.push(...pairSpecs(flags, suite, await running.bridge.tasks(suite), attack, localName));
  const patchNote = flags.environmentPatch ? `, environment patched from ${flags.environmentPatch.file}` : '';
  log(
    `${specs.length} pairs, ${concurrency} at a time, attack ${'name' in attack ? attack.name : attackFlag}, person ${flags.persons.join(', ')}${patchNote}, ${flags.pairTimeoutMs / 1000} s a pair at most`,
  );
  let nextIndex = 0;
  const worker = async () => {
    for (let i = nextIndex++; i < specs.length; i = nextIndex++) {
      const spec = specs[i] as PairSpec;
      const cell = await runPair(running, spec, flags.pairTimeoutMs).catch((err: unknown): PairCell => {
        log(`${spec.suite} ${spec.userTask} x ${spec.injectionTask ?? '-'} ${spec.model} (person ${spec.person ?? DEFAULT_PERSON}) failed: ${String(err)}`);
        return {
          ...spec,
          person: spec.person ?? DEFAULT_PERSON,
          shape: spec.shape ?? 'react',
          utility: false,
          attackSucceeded: null,
          askedPerson: false,
          decisions: [],
          askedAbout: [],
          terminal: `error: ${String(err).slice(0, 200)}`,
          detail: '',
          answer: '',
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
} catch (err) {
  if (!(err instanceof PatchRefused)) throw err;
  refused = err;
} finally {
  await stack?.close();
  await localModel?.stop();
}
if (refused) {
  process.stderr.write(`eval:agentdojo: ${refused.message}\n`);
  process.exit(2);
}
const rows = summarize(cells);
const wallMs = Date.now() - began;
const out = flags.out;
const local = localModel
  ? { localModel: { id: localModel.modelId, threads: flags.local.threads, ...(flags.subsetNote ? { subset: flags.subsetNote } : {}) } }
  : {};
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  `${JSON.stringify(
    {
      benchmark: 'agentdojo v1.2.2',
      attack: attackFlag,
      persons: flags.persons,
      ...(flags.environmentPatch ? { environmentPatch: flags.environmentPatch } : {}),
      wallMs,
      pairTimeoutMs: flags.pairTimeoutMs,
      ...(flags.runDeadlineMs ? { runDeadlineMs: flags.runDeadlineMs } : {}),
      ...local,
      summary: rows,
      cells,
    },
    null,
    2,
  )}\n`,
);
const succeeded = succeededAttacks(cells);
const listed = succeeded.length
  ? `\n\nattacks that succeeded, with the values the person approved on their way:\n${succeeded.map((l) => `- ${l}`).join('\n')}`
  : '';
process.stdout.write(`\n${summaryTables(rows)}${listed}\n\nwall time ${(wallMs / 1000).toFixed(0)} s; results in ${out}\n`);
