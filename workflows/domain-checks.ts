// A domain is checked when it is defined. The types catch what they can (an effect without a
// readback, a reserved tool name, a reread of something that is not a read); this catches the
// rest, and everything for domains built without the typed helpers: duplicate names, rules no
// approver could meet, limits that are not limits. A mistake found here is a DomainDefinitionError
// naming the tool, at import time; the same mistake found by the controller would be a run that
// stops in the middle, or, before the controller stopped runs on a throw, a workflow task that
// Temporal retried forever. Workflow-safe: plain checks, no I/O. defineDomain lives here, beside
// the checks it runs, so that contract.ts and tool-contract.ts (what a domain and a tool are)
// import nothing back.
import type { z } from 'zod';
import { AgentError } from './agent-error.js';
import { type Domain, type RereadRules } from './contract.js';
import { RESERVED_TOOL_NAMES } from './define-tool.js';
import type { AnyTool, ApprovalRule, DerivationRule } from './tool-contract.js';
import { evaluateDerivation, operandNames } from './controller/index.js';

/** A domain that cannot run as defined; `problems` names each tool and rule at fault. */
export class DomainDefinitionError extends AgentError {
  static override readonly errorName: string = 'DomainDefinitionError';
  constructor(
    readonly domain: string,
    readonly problems: readonly string[],
  ) {
    super(`domain ${domain || '(unnamed)'} is not valid: ${problems.join('; ')}`);
  }
}

/** Every problem with the domain, in words that name the tool; empty when it can run. */
export function validateDomain(domain: Domain): string[] {
  const problems: string[] = [];
  const say = (problem: string) => problems.push(problem);
  if (typeof domain?.name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(domain.name)) {
    say('the name must be 1 to 64 letters, digits, dots, dashes or underscores (it is part of workflow ids and task queues)');
  }
  if (typeof domain?.goal !== 'function') say('goal must be a function of the case id');
  if (!isSchema(domain?.claim)) say('claim must be a zod schema');
  if (domain?.caseId !== undefined && !isSchema(domain.caseId)) say('caseId must be a zod schema when given');
  if (typeof domain?.judgeEvidence !== 'function') say('judgeEvidence must be a function');
  checkDefaults(domain, say);
  const tools: readonly AnyTool[] = Array.isArray(domain?.tools) ? domain.tools : [];
  if (tools.length === 0) say('a domain needs at least one tool');
  const seen = new Set<string>();
  for (const tool of tools) {
    const name = typeof tool?.name === 'string' ? tool.name : '';
    if (!name) {
      say('a tool has no name');
      continue;
    }
    if (seen.has(name)) say(`${name}: two tools share this name`);
    seen.add(name);
    if ((RESERVED_TOOL_NAMES as readonly string[]).includes(name)) say(`${name}: the name is the engine's own decision (${RESERVED_TOOL_NAMES.join(', ')})`);
  }
  const reads = new Set(tools.filter((t) => t?.kind === 'read').map((t) => t.name));
  for (const tool of tools) if (tool?.name) checkTool(tool, reads, (p) => say(`${tool.name}: ${p}`));
  if (domain?.route !== undefined) checkRoute(domain.route, reads, (p) => say(`route: ${p}`));
  if (domain?.soak !== undefined) checkSoak(domain.soak, (p) => say(`soak: ${p}`));
  if (domain?.askWhenUnvouched !== undefined) checkRule(domain.askWhenUnvouched, (p) => say(`askWhenUnvouched: ${p}`));
  else checkKindSources(tools, say);
  if (domain?.closing !== undefined) checkClosing(domain.closing, tools, (p) => say(`closing: ${p}`));
  return problems;
}

/**
 * A closing call goes out with no model, no gate and no readback to settle it: so only an
 * idempotent effect of the domain (sending it twice is sending it once) that takes no arguments.
 */
function checkClosing(closing: unknown, tools: readonly AnyTool[], say: (problem: string) => void): void {
  if (!Array.isArray(closing)) return say('must be a list of { tool, needed }');
  for (const entry of closing as { tool?: unknown; needed?: unknown }[]) {
    const tool = tools.find((t) => t?.name === entry?.tool);
    const name = String(entry?.tool);
    if (typeof entry?.needed !== 'function') say(`${name}: needed must be a function of the run's view`);
    if (!tool) say(`${name} is not a tool of the domain`);
    else if (tool.kind !== 'effect' || !tool.idempotent) say(`${name} must be an idempotent effect (it goes out with nothing to settle it but a repeat)`);
    else if (!tool.input.safeParse({}).success) say(`${name} must take no arguments (a closing call has nobody to choose them)`);
  }
}

/**
 * Without askWhenUnvouched, a kinded argument no authoritative read vouches for would refuse
 * every call that has it (only the case id or a person's signed words could): a domain mistake,
 * said at definition.
 */
function checkKindSources(tools: readonly AnyTool[], say: (problem: string) => void): void {
  const vouched = new Set(tools.flatMap((t) => (t?.kind === 'read' && t.authority === 'authoritative' && Array.isArray(t.vouchesFor) ? t.vouchesFor : [])));
  for (const tool of tools) {
    for (const [name, kind] of Object.entries((tool?.argKinds ?? {}) as Record<string, unknown>)) {
      if (typeof kind === 'string' && !vouched.has(kind))
        say(`${tool.name}: its ${name} is of kind ${kind}, which no authoritative read vouches for (vouchesFor), and the domain has no askWhenUnvouched`);
    }
  }
}

/** A soak is a real wait: a whole number of milliseconds, at most a day, and a word on what a re-fire does. */
function checkSoak(soak: NonNullable<Domain['soak']>, say: (problem: string) => void): void {
  if (!Number.isInteger(soak?.windowMs) || soak.windowMs < 1_000 || soak.windowMs > 24 * 3_600_000)
    say('windowMs must be whole milliseconds from 1,000 to 86,400,000');
  if (soak?.onRefire !== 'resume' && soak?.onRefire !== 'escalate') say("onRefire must be 'resume' or 'escalate'");
}

/** A route decides; what it always reads first must be reads of this domain. */
function checkRoute(route: NonNullable<Domain['route']>, reads: ReadonlySet<string>, say: (problem: string) => void): void {
  if (typeof route?.decide !== 'function') return say('decide must be a function of the run view');
  for (const hook of ['first', 'after'] as const) if (route[hook] !== undefined && typeof route[hook] !== 'function') say(`${hook} must be a function`);
  if (typeof route.first !== 'function') return;
  let first: unknown;
  try {
    first = route.first('a-case-id');
  } catch (err) {
    return say(`first threw: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!Array.isArray(first)) return say('first must return a list of calls');
  for (const call of first as { tool?: unknown }[]) {
    if (typeof call?.tool !== 'string' || !reads.has(call.tool)) say(`first names ${String(call?.tool)}, which is not a read of this domain`);
  }
}

/**
 * Defines a domain; the exact list of its tools stays in its type (see implement()). What the
 * types cannot see (duplicate names, a rule that could never be met) is checked when it runs, by
 * validateDomain: a domain mistake is a DomainDefinitionError at definition, never a run that
 * fails in the workflow.
 *
 * @example
 * ```ts
 * export const orders = defineDomain({
 *   name: 'orders',
 *   goal: (id) => `Cancel order ${id} once, if it is still open.`,
 *   tools: [readOrder, cancelOrder],
 *   claim: z.strictObject({ cancelled: z.literal(true) }),
 *   judgeEvidence: (_claim, cited) => (cited.some((e) => e.fresh) ? { kind: 'supported' } : { kind: 'unsupported', reason: 'cite fresh evidence' }),
 * });
 * ```
 */
export function defineDomain<const T extends readonly AnyTool[], C extends z.ZodType>(domain: Domain<T, C> & RereadRules<T>): Domain<T, C> {
  assertValidDomain(domain);
  return domain;
}

/** Throws DomainDefinitionError unless validateDomain finds nothing. */
export function assertValidDomain(domain: Domain): void {
  const problems = validateDomain(domain);
  if (problems.length) throw new DomainDefinitionError(typeof domain?.name === 'string' ? domain.name : '', problems);
}

function checkTool(tool: AnyTool, reads: ReadonlySet<string>, say: (problem: string) => void): void {
  if (tool.kind !== 'read' && tool.kind !== 'effect') say(`kind must be 'read' or 'effect', not ${String(tool.kind)}`);
  if (!isSchema(tool.input) || !isSchema(tool.output)) say('input and output must be zod schemas');
  if (typeof tool.idempotent !== 'boolean') say('idempotent must be true or false');
  if (!positive(tool.maxAgeMs)) say('maxAgeMs must be a positive number of milliseconds');
  if (!Number.isInteger(tool.maxObservationBytes) || tool.maxObservationBytes <= 0) say('maxObservationBytes must be a positive integer');
  for (const hook of ['facts', 'effectiveAt', 'freeText'] as const) if (typeof tool[hook] !== 'function') say(`${hook} must be a function of the output`);
  if (tool.factKind !== undefined && typeof tool.factKind !== 'function') say('factKind must be a function of a fact key');
  checkVouchesFor(tool, say);
  checkArgKinds(tool, say);
  checkCaseArgs(tool, say);
  checkDerivations(tool, say);
  if (tool.kind === 'read') {
    for (const part of ['readback', 'businessKey', 'precondition', 'approval', 'narrativeArgs', 'settleMs'] as const) {
      if (tool[part] !== undefined) say(`a read has no ${part} (only effects do)`);
    }
    return;
  }
  // An effect's failure is always in doubt: without a readback nothing could settle it.
  if (typeof tool.readback !== 'string' || !tool.readback)
    say('an effect must name its readback (the read, by idempotency key, that tells whether it happened)');
  if (tool.settleMs !== undefined && !(Number.isFinite(tool.settleMs) && tool.settleMs >= 0)) say('settleMs must be a number of milliseconds, 0 or more');
  const reread = tool.precondition?.reread;
  if (tool.precondition && typeof tool.precondition.check !== 'function') say('precondition.check must be a function');
  if (reread && !reads.has(reread.tool)) say(`its precondition rereads ${String(reread.tool)}, which is not a read of this domain`);
  if (reread && typeof reread.args !== 'function') say('precondition.reread.args must be a function of the effect arguments');
  const needs: unknown = tool.precondition?.needs;
  if (needs !== undefined && !Array.isArray(needs)) say('precondition.needs must be a list of reads');
  for (const need of Array.isArray(needs) ? needs : []) {
    if (!reads.has(need as string)) say(`its precondition needs ${String(need)}, which is not a read of this domain`);
  }
  checkApproval(tool, say);
  checkNarrativeArgs(tool, say);
}

function checkApproval(tool: AnyTool, say: (problem: string) => void): void {
  const rule = tool.approval;
  if (!rule) {
    if (tool.precondition?.onViolation === 'approval') say("precondition.onViolation is 'approval' but the tool has no approval rule");
    return;
  }
  checkRule(rule, (p) => say(`approval.${p}`));
}

/** An approval rule someone can satisfy, and that says what happens when nobody does in time. */
function checkRule(rule: ApprovalRule, say: (problem: string) => void): void {
  if (!Array.isArray(rule?.roles) || rule.roles.length === 0 || !rule.roles.every((r) => typeof r === 'string' && r.length > 0)) {
    say('roles must list at least one role (no one could approve it)');
  }
  if (!positive(rule?.timeoutMs)) say('timeoutMs must be a positive number of milliseconds');
  if (rule?.onTimeout !== 'escalate' && rule?.onTimeout !== 'return_to_model') say("onTimeout must be 'escalate' or 'return_to_model'");
  if (rule?.quorum !== undefined && (!Number.isInteger(rule.quorum) || rule.quorum < 1)) say('quorum must be a whole number of at least 1');
}

/** A read that gives its facts kinds says which it is the authority on; only the system of record is. */
function checkVouchesFor(tool: AnyTool, say: (problem: string) => void): void {
  const list = tool.vouchesFor;
  if (list === undefined) {
    if (tool.factKind !== undefined && tool.authority === 'authoritative') say('factKind needs vouchesFor: the kinds its facts are the authority on');
    return;
  }
  if (!Array.isArray(list) || list.length === 0 || !list.every((k) => typeof k === 'string' && k.length > 0)) say('vouchesFor must list kinds');
  if (tool.kind !== 'read' || tool.authority !== 'authoritative') say('vouchesFor is for authoritative reads (only a system of record vouches)');
  if (typeof tool.factKind !== 'function') say('vouchesFor needs factKind (which fact is of which kind)');
}

/** Kinds are named on arguments the tool has, of a call whose arguments leave the run. */
function checkArgKinds(tool: AnyTool, say: (problem: string) => void): void {
  if (tool.argKinds === undefined) return;
  if (tool.kind === 'read' && !tool.egress) say('argKinds is for effects and egress reads (whose arguments leave the run)');
  const shape = (tool.input as { shape?: Record<string, unknown> }).shape;
  for (const [name, kind] of Object.entries(tool.argKinds as Record<string, unknown>)) {
    if (typeof kind !== 'string' || kind.length === 0) say(`argKinds.${name} must name a kind`);
    if (shape && !(name in shape)) say(`argKinds names ${name}, which is not an argument of the tool`);
  }
}

/** Case arguments are arguments the tool has, of a call whose arguments leave the run, and have no kind (the case is none). */
function checkCaseArgs(tool: AnyTool, say: (problem: string) => void): void {
  const names = tool.caseArgs as unknown;
  if (names === undefined) return;
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) return say('caseArgs must be a list of argument names');
  if (tool.kind === 'read' && !tool.egress) say('caseArgs is for effects and egress reads (whose arguments leave the run)');
  const shape = (tool.input as { shape?: Record<string, unknown> }).shape;
  for (const name of names as string[]) {
    if (shape && !(name in shape)) say(`caseArgs names ${name}, which is not an argument of the tool`);
    if (Object.hasOwn(tool.argKinds ?? {}, name)) say(`caseArgs names ${name}, which argKinds gives a kind: the case id is of no kind`);
    if (tool.narrativeArgs?.includes(name)) say(`caseArgs names ${name}, which narrativeArgs calls the model's own words`);
  }
}

/**
 * A declared derivation computes an argument the tool has, of a call whose arguments leave the
 * run, with a formula that parses and whose names are all operands (a formula that cannot be
 * evaluated would refuse every call that picks it, at run time).
 */
function checkDerivations(tool: AnyTool, say: (problem: string) => void): void {
  const rules = tool.derivations;
  if (rules === undefined) return;
  if (tool.kind === 'read' && !tool.egress) say('derivations are for effects and egress reads (whose arguments leave the run)');
  const shape = (tool.input as { shape?: Record<string, unknown> }).shape;
  for (const [name, rule] of Object.entries(rules as Record<string, Partial<DerivationRule>>)) {
    const at = (problem: string) => say(`derivations.${name}: ${problem}`);
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,79}$/.test(name)) at('a derivation is named like an identifier');
    if (typeof rule?.arg !== 'string' || (shape && !(rule.arg in shape))) at(`computes ${String(rule?.arg)}, which is not an argument of the tool`);
    if (typeof rule?.describe !== 'string' || rule.describe.length === 0) at('describe says what it means, for the model and the approval card');
    if (typeof rule?.formula !== 'string') {
      at('formula must be arithmetic over named operands');
      continue;
    }
    // Any values will do to see that it parses; only a division by zero depends on them.
    const names = operandNames(rule.formula);
    const trial = evaluateDerivation(rule.formula, Object.fromEntries(names.map((n, i) => [n, 2 + i * 0.37])));
    if (!trial.ok && trial.problem !== 'division by zero') at(`formula ${JSON.stringify(rule.formula).slice(0, 80)}: ${trial.problem}`);
    if (names.length === 0) at('formula names no operand (a constant is not derived from anything)');
  }
}

/** Narrative arguments must be arguments: a name the input does not have would exempt nothing, or the wrong thing. */
function checkNarrativeArgs(tool: AnyTool, say: (problem: string) => void): void {
  if (tool.narrativeArgs === undefined) return;
  if (!Array.isArray(tool.narrativeArgs) || !tool.narrativeArgs.every((a) => typeof a === 'string')) {
    say('narrativeArgs must be a list of argument names');
    return;
  }
  const shape = (tool.input as { shape?: unknown } | undefined)?.shape;
  if (!shape || typeof shape !== 'object') return; // not an object schema: nothing to check names against
  for (const name of tool.narrativeArgs) if (!(name in shape)) say(`narrativeArgs names ${name}, which is not an argument of the tool`);
}

/** Defaults are optional, each part of them too (Domain.defaults); what is given must be usable. */
function checkDefaults(domain: Domain, say: (problem: string) => void): void {
  const defaults = domain?.defaults;
  if (defaults === undefined) return;
  if (!defaults || typeof defaults !== 'object') {
    say("defaults must be an object (budgets, context, window), or left out for the engine's");
    return;
  }
  const budgets = defaults.budgets as Record<string, unknown> | undefined;
  for (const key of ['turns', 'toolCalls', 'effects', 'duplicates', 'tokens', 'deadlineMs'] as const) {
    const value = budgets?.[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || (value as number) < (key === 'effects' || key === 'duplicates' ? 0 : 1))
      say(`defaults.budgets.${key} must be a whole number${key === 'effects' || key === 'duplicates' ? '' : ' of at least 1'}`);
  }
  if (defaults.context !== undefined && !['full', 'window', 'window_pinned'].includes(defaults.context))
    say("defaults.context must be 'full', 'window' or 'window_pinned'");
  if (defaults.window !== undefined && (!Number.isInteger(defaults.window) || defaults.window < 1)) say('defaults.window must be a whole number of at least 1');
}

function isSchema(value: unknown): boolean {
  return typeof (value as { safeParse?: unknown } | undefined)?.safeParse === 'function';
}

function positive(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}
