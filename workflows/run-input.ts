// What a caller hands the agent workflow. Shared by the workflow, the client and the CLI.
import { z } from 'zod';
import { workerScoped } from './worker-scoped.js';
import { ContextStrategy } from './contract.js';
import { SignedNote, SignedStart } from './trust/statement.js';
import { Shape } from './shape.js';

/**
 * How deeply a scripted reply may nest. Replies are free-form JSON, and a start with thousands
 * of levels was accepted once yet left the run's state query unable to answer (the view carries
 * the input); a reply a model could send is never that deep, so such a start is refused.
 */
export const MAX_REPLY_DEPTH = 32;

/** Which model proposes the run's steps: `rules` (the implementation's policy), `scripted` replies, `openai`, or a `custom` adapter the worker was given. */
export const ModelConfig = workerScoped('run-input.ModelConfig', () =>
  z.discriminatedUnion('adapter', [
    /** Replies given in advance, one per proposal; running out is a loud failure. */
    z.strictObject({
      adapter: z.literal('scripted'),
      replies: z.array(z.unknown().refine((reply) => depthWithin(reply, MAX_REPLY_DEPTH), `a scripted reply may nest at most ${MAX_REPLY_DEPTH} levels`)),
      latencyMs: z.number().int().min(0).max(60_000).optional(),
    }),
    /** The domain's deterministic policy: the demo's default model. */
    z.strictObject({ adapter: z.literal('rules'), latencyMs: z.number().int().min(0).max(60_000).optional() }),
    /** An OpenAI-compatible chat-completions endpoint; connection details live on the worker. */
    z.strictObject({ adapter: z.literal('openai'), model: z.string().optional() }),
    /** A model adapter the worker was created with, by name (a team's own model, a test's adversary). */
    z.strictObject({ adapter: z.literal('custom'), name: z.string().min(1).max(80) }),
  ]),
);
export type ModelConfig = z.infer<typeof ModelConfig>;

/** Per-run changes to the domain's default budgets; any left out keep the domain's value. */
export const BudgetOverrides = workerScoped('run-input.BudgetOverrides', () =>
  z.strictObject({
    turns: z.number().int().min(1).max(100_000).optional(),
    toolCalls: z.number().int().min(0).max(1_000_000).optional(),
    effects: z.number().int().min(0).max(1_000).optional(),
    duplicates: z.number().int().min(0).max(1_000).optional(),
    tokens: z.number().int().min(1).optional(),
    deadlineMs: z.number().int().min(1_000).optional(),
    /** Money the run may spend on model calls, in millionths of the price table's currency (docs/spend.md). */
    spendMicros: z.number().int().min(1).max(1e15).optional(),
  }),
);

/** What a run is started with: the domain, the case id, the model, and optional budgets, approvers, effects and a signed start. */
export const RunInput = workerScoped('run-input.RunInput', () =>
  z.strictObject({
    domain: z.string(),
    caseId: z.string().min(1).max(80),
    model: ModelConfig,
    budgets: BudgetOverrides.optional(),
    /**
     * Who decides the run's steps (workflows/shape.ts): `react` (absent: the model, every
     * turn), `hybrid` (the domain's route where it knows the way, the model where it does not),
     * `workflow` (the route alone; the run escalates where it cannot decide), `plan` (the model
     * plans reads and the effect it expects in one turn; asked again when an observation contradicts it).
     */
    shape: Shape.optional(),
    context: z
      .strictObject({ strategy: ContextStrategy, window: z.number().int().min(1).max(200) })
      .partial()
      .optional(),
    /**
     * Narrows the worker's approver directory to these ids; it can never add one. (The old form,
     * a record of id to roles, is read as its ids: the roles in it are ignored.)
     */
    approvers: z.union([z.array(z.string().min(1).max(200)).max(100), z.record(z.string(), z.array(z.string()))]).optional(),
    /**
     * Narrows which effects the run may take: `none` (an investigation: reads only), or the
     * names of the domain's effects it may take. It can only narrow what the domain allows; an
     * effect outside it is refused `not_permitted`, and the model may recommend it to a person.
     */
    effects: z.union([z.literal('none'), z.array(z.string().min(1).max(100)).max(50)]).optional(),
    /** The starter's signed statement; a contract may then refuse the starter as its approver. */
    start: SignedStart.optional(),
    /**
     * What the starter asks for, as their signed note (client/sign.ts signNote, for this run's
     * id): taken before the first proposal is judged, so the values it names may steer an effect
     * from the first turn. It counts as an operator's word only if the directory gives its key a
     * note role (Domain.noteRoles); otherwise it is untrusted text, like any note.
     */
    request: SignedNote.optional(),
    /** Overrides every contract's approval wait (tests use seconds, production hours). */
    approvalTimeoutMs: z.number().int().min(1_000).optional(),
    /** How long the run waits out a model endpoint that does not answer before it escalates (default MODEL_OUTAGE_MS). */
    modelOutageMs: z.number().int().min(1_000).max(86_400_000).optional(),
    /**
     * Who pays: the team whose daily spend cap the worker charges (docs/spend.md), and the
     * fairness key of the run's model calls when they go to a model queue.
     */
    team: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a team is 1-64 letters, digits, dots, dashes or underscores')
      .optional(),
    /**
     * The task queue the run's model calls go to, served by workers that rate-limit them for the
     * whole queue (maxTaskQueueActivitiesPerSecond). Absent: the run's own queue, unlimited.
     */
    modelQueue: z.string().min(1).max(200).optional(),
    /** Continue-as-new after this many history events (default: when the server suggests it). */
    continueAsNewAfterEvents: z.number().int().min(100).optional(),
  }),
);
export type RunInput = z.infer<typeof RunInput>;

/** The ids a run's input narrows the approver directory to, if it narrows it. */
export function approverScope(run: RunInput): string[] | undefined {
  if (run.approvers === undefined) return undefined;
  return Array.isArray(run.approvers) ? run.approvers : Object.keys(run.approvers);
}

/** Whether `value` nests at most `limit` arrays or objects deep; iterative, so no input can exhaust the stack. */
function depthWithin(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop() as [unknown, number];
    if (item === null || typeof item !== 'object') continue;
    if (depth >= limit) return false;
    for (const child of Object.values(item as Record<string, unknown>)) pending.push([child, depth + 1]);
  }
  return true;
}

/** The effects a run's input permits, if it narrows them: `none` is the empty list. */
export function permittedEffects(run: Pick<RunInput, 'effects'>): string[] | undefined {
  if (run.effects === undefined) return undefined;
  return run.effects === 'none' ? [] : [...new Set(run.effects)].sort();
}

/** Why a run's effect permissions name something the domain has no effect for, if they do. */
export function unknownEffectOf(
  run: Pick<RunInput, 'effects'>,
  domain: { name: string; tools: readonly { name: string; kind: string }[] },
): string | undefined {
  const effects = new Set(domain.tools.filter((t) => t.kind === 'effect').map((t) => t.name));
  const unknown = (permittedEffects(run) ?? []).filter((name) => !effects.has(name));
  if (unknown.length === 0) return undefined;
  return `${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not an effect of ${domain.name} (its effects: ${[...effects].join(', ') || 'none'})`;
}
