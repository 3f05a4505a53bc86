// The settings a start is compared on when it finds its case's run already there (model,
// budgets, approvers, effects, approval timeout, model outage allowance, shape, context, and who
// is charged and where the model calls go: team and model queue), in the one form both sides of
// the comparison take. Whoever starts a case first chooses its input, so a setting left out here
// is one a stranger may choose for the operator's run while the operator's start reports "same
// settings" (a model queue they poll makes them the run's model). A later start compares them
// from the run's first history event (public APIs: the history RPC and the client's own data
// converter), because that is what the workflow runs with. A start also writes them into the
// run's memo, for people: the Web UI and describe() show them.
import { createHash } from 'node:crypto';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { z } from 'zod';
import { approverScope, permittedEffects, RunInput } from '../workflows/run-input.js';
import { canonical } from '../workflows/trust/statement.js';
import { Shape } from '../workflows/controller/index.js';
import { formatZodError } from './errors.js';
import { compact } from './format.js';
import { startInputOf } from './start-input.js';

/** The memo field startRun writes the run's StartSettings under. */
export const START_SETTINGS_MEMO = 'agentStartSettings';

/**
 * What a run was asked to do, as recorded in its memo (and shown as such in the Web UI).
 * Strict and versioned: settings written by a later engine that this one cannot read whole are
 * not half-compared; the run's first event is read instead.
 */
export const StartSettings = z.strictObject({
  version: z.literal(1),
  /** The model config as shown in a difference, and a digest of all of it (a shown model may be shortened). */
  model: z.strictObject({ shown: z.string(), digest: z.string() }),
  /** Only the budgets the start set; an absent one is the domain default. */
  budgets: z.record(z.string(), z.number()),
  /** Sorted ids the directory is narrowed to; null is the directory default. */
  approvers: z.array(z.string()).nullable(),
  /** Sorted effects the run may take ([] for none); null is the domain default. */
  effects: z.array(z.string()).nullable(),
  /** null is each contract's own approval timeout. */
  approvalTimeoutMs: z.number().nullable(),
  /** Absent is MODEL_OUTAGE_MS (and every memo written before the setting). */
  modelOutageMs: z.number().optional(),
  /** Who decides the steps; absent is react (and every memo written before shapes). */
  shape: Shape.optional(),
  /** The context strategy and window the start set; absent is the domain's (and every memo written before the setting). */
  context: z.strictObject({ strategy: z.string().optional(), window: z.number().optional() }).optional(),
  /** Whose spend cap the model calls are charged to; absent is the default team (and every memo written before the setting). */
  team: z.string().optional(),
  /** The task queue the model calls go to; absent is the run's own (and every memo written before the setting). */
  modelQueue: z.string().optional(),
});
export type StartSettings = z.infer<typeof StartSettings>;

/** The comparable settings of a run input. Who signed the start is not a setting. */
export function startSettingsOf(run: RunInput): StartSettings {
  const scope = approverScope(run);
  const budgets = Object.entries(run.budgets ?? {}).filter((entry): entry is [string, number] => entry[1] !== undefined);
  return {
    version: 1,
    model: { shown: describeModel(run.model), digest: createHash('sha256').update(canonical(run.model)).digest('hex') },
    budgets: Object.fromEntries(budgets.sort(([a], [b]) => (a < b ? -1 : 1))),
    approvers: scope === undefined ? null : [...new Set(scope)].sort(),
    effects: permittedEffects(run) ?? null,
    approvalTimeoutMs: run.approvalTimeoutMs ?? null,
    ...(run.modelOutageMs !== undefined ? { modelOutageMs: run.modelOutageMs } : {}),
    ...(run.shape && run.shape !== 'react' ? { shape: run.shape } : {}),
    ...(contextOf(run) ?? {}),
    ...(run.team !== undefined ? { team: run.team } : {}),
    ...(run.modelQueue !== undefined ? { modelQueue: run.modelQueue } : {}),
  };
}

/** The context the start set, as a settings field; `{}` sets nothing, so it is the domain's too. */
function contextOf(run: RunInput): Pick<StartSettings, 'context'> | undefined {
  const { strategy, window } = run.context ?? {};
  if (strategy === undefined && window === undefined) return undefined;
  return { context: { ...(strategy !== undefined ? { strategy } : {}), ...(window !== undefined ? { window } : {}) } };
}

/**
 * How a run's recorded settings differ from the ones a new start asked for, one phrase per
 * setting: `approvers: run has [mallory], this start asked for directory default`. Empty when
 * they match.
 */
export function diffStartSettings(existing: StartSettings, requested: StartSettings): string[] {
  const diffs: string[] = [];
  const differ = (name: string, there: string, here: string, same = there === here) => {
    if (!same) diffs.push(`${name}: run has ${there}, this start asked for ${here}`);
  };
  differ('model', existing.model.shown, requested.model.shown, existing.model.digest === requested.model.digest);
  const budgetNames = new Set([...Object.keys(existing.budgets), ...Object.keys(requested.budgets)]);
  const budget = (v: number | undefined) => (v === undefined ? 'domain default' : String(v));
  for (const name of [...budgetNames].sort()) differ(`budgets.${name}`, budget(existing.budgets[name]), budget(requested.budgets[name]));
  const ids = (list: string[] | null, none: string, unset: string) => (list === null ? unset : list.length ? `[${list.join(', ')}]` : none);
  differ('approvers', ids(existing.approvers, '[]', 'directory default'), ids(requested.approvers, '[]', 'directory default'));
  differ('effects', ids(existing.effects, 'none', 'domain default'), ids(requested.effects, 'none', 'domain default'));
  const timeout = (ms: number | null) => (ms === null ? 'contract default' : `${ms} ms`);
  differ('approval timeout', timeout(existing.approvalTimeoutMs), timeout(requested.approvalTimeoutMs));
  const outage = (ms: number | undefined) => (ms === undefined ? 'the default' : `${ms} ms`);
  differ('model outage allowance', outage(existing.modelOutageMs), outage(requested.modelOutageMs));
  differ('shape', existing.shape ?? 'react', requested.shape ?? 'react');
  const context = (c: StartSettings['context'], key: 'strategy' | 'window') => (c?.[key] === undefined ? 'the domain default' : String(c[key]));
  differ('context strategy', context(existing.context, 'strategy'), context(requested.context, 'strategy'));
  differ('context window', context(existing.context, 'window'), context(requested.context, 'window'));
  differ('team', existing.team ?? 'the default team', requested.team ?? 'the default team', existing.team === requested.team);
  differ(
    'model queue',
    existing.modelQueue ?? "the run's own queue",
    requested.modelQueue ?? "the run's own queue",
    existing.modelQueue === requested.modelQueue,
  );
  return diffs;
}

/** diffStartSettings over two run inputs. */
export function settingsDiff(existing: RunInput, requested: RunInput): string[] {
  return diffStartSettings(startSettingsOf(existing), startSettingsOf(requested));
}

/**
 * The settings the described execution was started with, from its first history event: what
 * the workflow really runs with. The memo is written by whoever starts the run, so it is shown
 * (the Web UI, `describe`) but never believed over the input: a start that wrote one input and
 * a memo claiming other settings would otherwise make a later start report "same settings".
 * Only when the first event cannot be read (history unavailable, a payload this client cannot
 * decode) does the memo stand in; the result then has no `case`. A string says why nothing could
 * be read; the caller reports the settings as not compared.
 */
export async function recordedSettings(
  client: Client,
  described: Pick<WorkflowExecutionDescription, 'workflowId' | 'runId' | 'memo'>,
): Promise<{ settings: StartSettings; case?: RunCase } | string> {
  let unreadable: string;
  try {
    const input = (await startInputOf(client, described.workflowId, described.runId)) as { run?: unknown } | undefined;
    const parsed = RunInput.safeParse(input?.run);
    if (parsed.success) return { settings: startSettingsOf(parsed.data), case: { domain: parsed.data.domain, caseId: parsed.data.caseId } };
    unreadable = `the run was started with input this client cannot read (${formatZodError(parsed.error)})`;
  } catch (err) {
    unreadable = `the run's start event could not be read (${err instanceof Error ? err.message : String(err)})`;
  }
  const memo = StartSettings.safeParse(described.memo?.[START_SETTINGS_MEMO]);
  return memo.success ? { settings: memo.data } : unreadable;
}

/** A run's domain and case: together they name its workflow id (workflows/run-identity.ts). */
export type RunCase = Pick<RunInput, 'domain' | 'caseId'>;

/**
 * How the case of the run found under a workflow id differs from the one a start asked for. The
 * id is `<domain>-<case>`, so two domains whose names differ by a `-suffix` can share one:
 * `a` case `b-1` and `a-b` case `1` are both `a-b-1`. Attaching to the other's run would report
 * "same settings" about someone else's case.
 */
export function caseDifference(recorded: RunCase, requested: RunCase): string[] {
  if (recorded.domain === requested.domain && recorded.caseId === requested.caseId) return [];
  // The recorded case is whatever its starter wrote: shortened, like any of their text shown here.
  const short = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);
  const named = (c: RunCase) => `${short(c.domain, 40)} case ${short(c.caseId, 80)}`;
  return [`case: run is ${named(recorded)}, this start asked for ${named(requested)}`];
}

function describeModel(model: RunInput['model']): string {
  // Everything that configures the model counts, not just its name.
  const { adapter, ...rest } = model;
  const details = Object.entries(rest)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return details.length ? `${adapter} ${compact(Object.fromEntries(details), 80)}` : adapter;
}
