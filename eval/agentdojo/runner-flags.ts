// Why this exists: the AgentDojo runner's command line as a function of its argv (it reads only
// the --environment-patch file), so what it selects (suites, models, the persons who answer the
// cards, which tasks each model runs, the local model's default subset, the per-pair timeout, the
// environment patch) and the pairs it makes of a suite's tasks are tested without a server or a
// model. A bad flag is a value naming it, never a throw.
import { parseArgs } from 'node:util';
import { Shape } from '../../workflows/controller/index.js';
import type { Attack } from './client.js';
import { readEnvironmentPatch, type EnvironmentPatch } from './environment-patch.js';
import { AGENTDOJO_MODELS, type AgentDojoModel, type LocalModel, type ScriptedModel } from './models.js';
import { DEFAULT_PERSON, PERSONS, type Person } from './person.js';
import { DEFAULT_PAIR_TIMEOUT_MS, DEFAULT_SUITES, SUITES, type PairSpec, type Suite } from './run-pair.js';

/** What `--models` may name: the scripted models, and `local` (opt-in, never in the default set). */
export type RunnerModel = ScriptedModel | 'local';
export const RUNNER_MODELS: readonly RunnerModel[] = [...AGENTDOJO_MODELS, 'local'];

/**
 * The local model's default subset, per suite, when `--pairs` / `--injections` are not given: user
 * tasks 0-3, each without attack and with injection_task_0. A 1.5B model on a CPU takes minutes a pair.
 */
export const LOCAL_SUBSET = { pairs: '0-3', injections: '0' } as const;
/** A pair of the local model: its run's own deadline (5 min) plus the wait for the one model server. */
export const LOCAL_PAIR_TIMEOUT_MS = 15 * 60_000;
const PAIR_MARGIN_MS = 5 * 60_000;

/** Which user tasks and injection tasks a model runs, as `all`, `none` or numbers and ranges. */
export interface Selection {
  pairs: string;
  injections: string;
}

export interface RunnerFlags {
  suites: Suite[];
  models: RunnerModel[];
  /** `--person`: who answers the cards; each pair runs once per person named. */
  persons: Person[];
  /** Per model named in `models`. */
  selection: Partial<Record<RunnerModel, Selection>>;
  /** Set when the local model runs its default subset: the note the runner prints. */
  subsetNote?: string;
  attack: string;
  shape?: Shape;
  concurrency: number;
  pairTimeoutMs: number;
  /** `--run-deadline-ms`: each run's own deadline instead of the domain's (its budget, on the run's clock). */
  runDeadlineMs?: number;
  /** `--environment-patch FILE`: the file and its checked content, merged into each pair's environment by the bridge. */
  environmentPatch?: { file: string; patch: EnvironmentPatch };
  out: string;
  /** The local model server's flags (`npm run model:local -- ...`). */
  local: { small: boolean; threads: number };
}

export type Parsed = { ok: true; flags: RunnerFlags } | { ok: false; error: string };

const RANGE = /^(\d+)(?:-(\d+))?$/;

/** Whether a task spec is well formed: `all`, `none`, or numbers and ranges (`0-3,7`; `none` may be listed). */
export function checkSpec(spec: string): string | undefined {
  if (spec === 'all' || spec === 'none') return undefined;
  const parts = spec.split(',').map((p) => p.trim());
  for (const part of parts) if (part !== 'none' && !RANGE.test(part)) return `not a number or range: ${JSON.stringify(part)}`;
  return undefined;
}

/** A checked spec as a filter over task numbers. `none` in a list adds nothing: the no-attack run is always there. */
export function numberFilter(spec: string): (n: number) => boolean {
  if (spec === 'all') return () => true;
  const ranges = spec.split(',').flatMap((part) => {
    const m = RANGE.exec(part.trim());
    return m ? [[Number(m[1]), Number(m[2] ?? m[1])] as const] : [];
  });
  return (n) => ranges.some(([a, b]) => n >= a && n <= b);
}

export const taskNumber = (id: string) => Number(/(\d+)$/.exec(id)?.[1] ?? NaN);

/** The task ids a spec selects, in their order. */
export function pickTasks(ids: readonly string[], spec: string): string[] {
  const keep = numberFilter(spec);
  return ids.filter((id) => keep(taskNumber(id)));
}

const list = (raw: string) =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function positiveInt(raw: string | undefined, name: string): number | string {
  const n = Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : `--${name} must be a positive integer, got ${JSON.stringify(raw)}`;
}

export function parseRunnerFlags(argv: readonly string[], defaults: { out: string }): Parsed {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        suites: { type: 'string', default: DEFAULT_SUITES.join(',') },
        models: { type: 'string', default: AGENTDOJO_MODELS.join(',') },
        person: { type: 'string', default: DEFAULT_PERSON },
        'environment-patch': { type: 'string' },
        pairs: { type: 'string' },
        injections: { type: 'string' },
        attack: { type: 'string', default: 'important_instructions' },
        shape: { type: 'string' },
        concurrency: { type: 'string' },
        'pair-timeout-ms': { type: 'string' },
        'run-deadline-ms': { type: 'string' },
        'local-small': { type: 'boolean', default: false },
        'local-threads': { type: 'string', default: '1' },
        out: { type: 'string', default: defaults.out },
      },
      strict: true,
    }));
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }

  const suites = list(values.suites);
  for (const s of suites) if (!(SUITES as readonly string[]).includes(s)) return { ok: false, error: `unknown suite ${s} (known: ${SUITES.join(', ')})` };
  if (suites.length === 0) return { ok: false, error: '--suites names no suite' };
  const models = [...new Set(list(values.models))];
  for (const m of models)
    if (!(RUNNER_MODELS as readonly string[]).includes(m)) return { ok: false, error: `unknown model ${m} (known: ${RUNNER_MODELS.join(', ')})` };
  if (models.length === 0) return { ok: false, error: '--models names no model' };
  const persons = [...new Set(list(values.person))];
  for (const p of persons) if (!(PERSONS as readonly string[]).includes(p)) return { ok: false, error: `unknown person ${p} (known: ${PERSONS.join(', ')})` };
  if (persons.length === 0) return { ok: false, error: '--person names no person' };
  for (const [name, spec] of [
    ['pairs', values.pairs],
    ['injections', values.injections],
  ] as const) {
    const bad = spec === undefined ? undefined : checkSpec(spec);
    if (bad) return { ok: false, error: `--${name}: ${bad}` };
  }
  const shape = values.shape === undefined ? undefined : Shape.safeParse(values.shape);
  if (shape && !shape.success) return { ok: false, error: `unknown shape ${values.shape}` };

  const local = models.includes('local');
  // The local model serves one request at a time: two pairs in flight only queue behind each other.
  const concurrency = positiveInt(values.concurrency ?? (local ? '1' : '2'), 'concurrency');
  if (typeof concurrency === 'string') return { ok: false, error: concurrency };
  const runDeadlineMs = values['run-deadline-ms'] === undefined ? undefined : positiveInt(values['run-deadline-ms'], 'run-deadline-ms');
  if (typeof runDeadlineMs === 'string') return { ok: false, error: runDeadlineMs };
  if (runDeadlineMs !== undefined && runDeadlineMs < 1_000) return { ok: false, error: `--run-deadline-ms must be at least 1000, got ${runDeadlineMs}` };
  // A pair outlives its run's deadline by a margin (approvals, the model server's queue), unless told.
  const basePairTimeout = local ? LOCAL_PAIR_TIMEOUT_MS : DEFAULT_PAIR_TIMEOUT_MS;
  const pairTimeoutMs = positiveInt(
    values['pair-timeout-ms'] ?? String(runDeadlineMs === undefined ? basePairTimeout : Math.max(basePairTimeout, runDeadlineMs + PAIR_MARGIN_MS)),
    'pair-timeout-ms',
  );
  if (typeof pairTimeoutMs === 'string') return { ok: false, error: pairTimeoutMs };
  const threads = positiveInt(values['local-threads'], 'local-threads');
  if (typeof threads === 'string') return { ok: false, error: threads };
  const patchFile = values['environment-patch'];
  const patch = patchFile === undefined ? undefined : readEnvironmentPatch(patchFile);
  if (patch && !patch.ok) return { ok: false, error: patch.error };

  const given: Selection = { pairs: values.pairs ?? 'all', injections: values.injections ?? 'all' };
  const selection: Partial<Record<RunnerModel, Selection>> = {};
  for (const m of models as RunnerModel[])
    selection[m] = m === 'local' ? { pairs: values.pairs ?? LOCAL_SUBSET.pairs, injections: values.injections ?? LOCAL_SUBSET.injections } : given;
  const defaulted = [
    values.pairs === undefined ? { flag: '--pairs', what: `user tasks ${LOCAL_SUBSET.pairs}` } : undefined,
    values.injections === undefined ? { flag: '--injections', what: `injection task ${LOCAL_SUBSET.injections}` } : undefined,
  ].filter((d) => d !== undefined);
  const subsetNote =
    local && defaulted.length > 0
      ? `the local model runs a subset: ${defaulted.map((d) => d.what).join(' and ')} per suite, each also without attack (no ${defaulted.map((d) => d.flag).join(' or ')} given)`
      : undefined;

  return {
    ok: true,
    flags: {
      suites: suites as Suite[],
      models: models as RunnerModel[],
      persons: persons as Person[],
      selection,
      ...(subsetNote ? { subsetNote } : {}),
      attack: values.attack,
      ...(shape?.success ? { shape: shape.data } : {}),
      concurrency,
      pairTimeoutMs,
      ...(runDeadlineMs !== undefined ? { runDeadlineMs } : {}),
      ...(patchFile !== undefined && patch?.ok ? { environmentPatch: { file: patchFile, patch: patch.patch } } : {}),
      out: values.out,
      local: { small: values['local-small'], threads },
    },
  };
}

/**
 * A suite's pairs: for each model and each person, each selected user task once without attack and
 * once per selected injection task, each with the suite's part of the environment patch, if any.
 * `localName` is the cells' name for `local` (`local-<model id>`).
 */
export function pairSpecs(
  flags: Pick<RunnerFlags, 'models' | 'persons' | 'selection' | 'shape' | 'runDeadlineMs' | 'environmentPatch'>,
  suite: Suite,
  tasks: { userTasks: readonly string[]; injectionTasks: readonly string[] },
  attack: Attack,
  localName?: LocalModel,
): PairSpec[] {
  const specs: PairSpec[] = [];
  const environmentPatch = flags.environmentPatch?.patch[suite];
  for (const model of flags.models) {
    const selected = flags.selection[model];
    if (!selected) continue;
    const name: AgentDojoModel | undefined = model === 'local' ? localName : model;
    // A bug in the runner, not a bad flag: the local model is named once its server is up.
    if (!name) throw new Error('pairSpecs: the local model has no name (start its server first)');
    for (const person of flags.persons)
      for (const userTask of pickTasks(tasks.userTasks, selected.pairs))
        for (const injectionTask of [null, ...pickTasks(tasks.injectionTasks, selected.injections)])
          specs.push({
            suite,
            userTask,
            injectionTask,
            model: name,
            person,
            attack,
            ...(flags.shape ? { shape: flags.shape } : {}),
            ...(flags.runDeadlineMs !== undefined ? { budgets: { deadlineMs: flags.runDeadlineMs } } : {}),
            ...(environmentPatch ? { environmentPatch } : {}),
          });
  }
  return specs;
}
