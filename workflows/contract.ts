// What a tool promises, and what a domain is. Workflow-safe: zod and plain data only, so the
// controller can check proposals inside the workflow sandbox and activities can share it.
import { z } from 'zod';
import { DEFAULT_MAX_AGE_MS, DEFAULT_MAX_OBSERVATION_BYTES } from './policy.js';
import { workerScoped } from './worker-scoped.js';

/** How far a tool's source may be trusted: `authoritative` (the system of record), `secondary`, `untrusted`. */
export const Authority = workerScoped('contract.Authority', () => z.enum(['authoritative', 'secondary', 'untrusted']));
export type Authority = z.infer<typeof Authority>;

/** A fact the controller may reason about: scalar values only, never free text. */
export type FactValue = string | number | boolean | null;
/** A tool's facts: named scalar values, e.g. `{ 'order.status': 'OPEN' }`. */
export type Facts = Record<string, FactValue>;

/** What a precondition answers. A refusal's reason is shown to the model and to approvers. */
export type PreconditionVerdict = { ok: true } | { ok: false; reason: string };

/** What must hold before an effect may run: a pure check over the run's evidence, and the read to repeat before dispatch. */
export interface Precondition<I, W extends string = string> {
  /**
   * Pure: the call's arguments and the run's evidence about the call's subject (only that
   * subject; judged fresh against the clock now). Runs when the call is proposed, before any
   * approval is raised, and again just before dispatch.
   */
  check(args: I, about: EvidenceView[], run: { caseId: string }): PreconditionVerdict;
  /**
   * The authoritative read to repeat before dispatching an effect that waited for a person:
   * the facts may have changed while it waited.
   */
  reread?: { tool: W; args(effectArgs: I): unknown };
  /**
   * The reads whose evidence the check judges. A refusal names them: a planner is shown a
   * refusal's code and not its reason (which may quote a value), and this tells it what to read
   * first.
   */
  needs?: readonly W[];
  /** `refuse` (default): a violation is refused. `approval`: it becomes an approval request that states it. */
  onViolation?: 'refuse' | 'approval';
}

/**
 * One declared way to compute an argument (ToolContract.derivations).
 *
 * @example
 * const rise: DerivationRule = { arg: 'amount', formula: 'old + rise', describe: 'an amount after a rise the user states' };
 */
export interface DerivationRule {
  /** The top-level numeric argument it computes (defineDomain checks the tool has it). */
  arg: string;
  /** Arithmetic over named operands (`rent + rise`, `total * share / 100`). */
  formula: string;
  /** What it means, for the model's tool description and the approval card. */
  describe: string;
}

/** A tool's approval rule: who must sign off (roles, quorum) and what happens when nobody does in time. */
export interface ApprovalRule {
  /** A signed decision counts only from a directory key holding one of these roles. */
  roles: string[];
  timeoutMs: number;
  onTimeout: 'escalate' | 'return_to_model';
  /** Distinct approvers needed (default 1). One denial ends the request. */
  quorum?: number;
  /** The approver may not be the one who (verifiably) started the run. */
  notStarter?: boolean;
}

/**
 * A tool as the engine sees it, every part filled (defineTool fills what its author left out;
 * each part's default is stated beside it). The type parameters keep the tool's name, argument
 * and output types, the name of its readback, its kind and the read its precondition repeats, so
 * a domain and its implementation can be checked against it (a missing tool, a wrong argument
 * type, a readback that does not exist, an effect without one, a reread of a tool that is not a
 * read of the domain: each is a compile error).
 */
export interface ToolContract<
  I extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
  N extends string = string,
  R extends string = string,
  K extends ToolKind = ToolKind,
  W extends string = string,
> {
  name: N;
  description: string;
  input: I;
  output: O;
  kind: K;
  /**
   * True when calling it twice does no harm: reads, or effects the system dedupes by key. Only
   * such a call is retried. Default: true for a read, false for an effect (one attempt; an
   * unclear outcome is read back, never sent again).
   */
  idempotent: boolean;
  /** The system it asks, as evidence names it to the model and to a domain's judgements. Default: the tool's name. */
  source: string;
  /**
   * How far its answers may be trusted. Only facts of `authoritative` evidence may supply an
   * effect's arguments, and a domain's judgements see each observation's authority. Default:
   * `secondary` (not the system of record); declare `authoritative` for a system of record.
   */
  authority: Authority;
  /** Older than this (from the time the source says the data holds) and it is stale. Default: DEFAULT_MAX_AGE_MS (a minute). */
  maxAgeMs: number;
  /** Tool output above this many bytes (JSON) is shrunk with a marker before anyone sees it. Default: DEFAULT_MAX_OBSERVATION_BYTES (4 KiB). */
  maxObservationBytes: number;
  /** What a call is about, from its arguments, e.g. `transfer:PX-1042`. Default: the case. */
  subject?(args: z.infer<I>): string;
  /**
   * What an answer is about, from the output (`transfer:${o.transferId}`). A system of record
   * that answers about something other than what it was asked (a bug, a cache, a compromised
   * service) then gives `bad_output`, and nothing it said is filed under the asked subject.
   * Declare it on every read whose output names its subject.
   */
  answers?(output: z.infer<O>): string;
  /**
   * For reads: it reaches outside the run (fetches a URL, writes to a mailbox, calls another
   * party), so its arguments leave for the world like an effect's: each must cite the case, a
   * fresh authoritative fact or a typed field a person signed (see argKinds). A read whose URL only a web page or a message named
   * is how an injected instruction would carry data out. Default: false.
   */
  egress?: boolean;
  /**
   * The kind of thing each top-level argument is (`iban`, `amount`, `email`), for effects and
   * egress reads: such an argument is vouched for only by a trusted fact of the same kind (see
   * factKind), by its value however it is spelled (`100` and `100.00`; an IBAN with or without
   * spaces; text never read as a number), or by a typed field of that kind a person signed (never
   * by their words). An amount of 4 is not
   * vouched for by a transaction whose id is 4. A fact whose value an effect of this run carried
   * (of a kinded argument) vouches for nothing afterwards: a person's approval of one payment to
   * an account vouches for that call, never for the account in the record it leaves behind.
   * An argument without a kind cites its source too (a fact, a signed field, the case), unless
   * it is in caseArgs or its schema lists its values (an enum): a trusted value that merely
   * equals it vouches for nothing.
   */
  argKinds?: Partial<Record<keyof z.infer<I> & string, string>>;
  /**
   * For effects and egress reads: top-level arguments that are the case id itself (the transfer
   * a payments case is about, the order a cancellation case is for). The case is their source:
   * the model need not cite it, and any other value is refused. Default: none.
   */
  caseArgs?: readonly string[];
  /**
   * For effects and egress reads: the ways a numeric argument may be computed from other
   * numbers, by name (`rent_rise: { arg: 'amount', formula: 'rent + rise', describe: 'a standing
   * order after a stated rise' }`). The formula is arithmetic (+ - * /, parentheses, numbers,
   * percentages) over named operands. A proposal that picks one binds each operand to a trusted
   * fact of the argument's kind (`e3.scheduled.7.amount`) or to a number a person's signed words
   * state; the result then vouches for the argument. Arithmetic the model writes itself is
   * checked and shown to a person, never vouched for. Default: none.
   */
  derivations?: Record<string, DerivationRule>;
  /**
   * The kind of the fact under `key` (one of the keys `facts` returns), or undefined: what
   * argument of another tool it may fill (see argKinds). Default: no fact has a kind.
   */
  factKind?(key: string): string | undefined;
  /**
   * For authoritative reads with a factKind: the kinds its facts are the authority on, for the
   * purpose the kind names. A kind is a purpose, not a format: a payee list vouches for a
   * `payee`; a transaction history says what happened (`counterparty`), never whom the user
   * pays, and anyone can send money in. So a fact that a third party can write (an incoming
   * transfer, a message, a file, a web page) gets a kind no effect's argument has, or none. A
   * kind factKind answers that is not listed here vouches for nothing. defineDomain refuses an
   * argument kind no read vouches for when nobody is asked about unvouched values.
   */
  vouchesFor?: readonly string[];
  /** For effects: the readback (implemented beside the tools) that tells, by idempotency key, whether it happened. */
  readback?: R;
  /**
   * For effects: its reply is a claim, not the world's word. A success is recorded `applied` only
   * once its readback finds the effect by key, and the readback's record (not the reply) becomes
   * the evidence. Declare it on effects that move money or anything a person would pay twice for:
   * a reply can come from a proxy, a bug or an operator's hand-made activity result.
   */
  confirmByReadback?: boolean;
  /**
   * For effects: the longest a request, once sent, may still commit at the system of record
   * (its own request timeout). A readback that finds nothing is final only after this, unless the
   * readback fenced the key (Readback.fenced). Default: DEFAULT_COMMIT_WINDOW_MS.
   */
  commitWindowMs?: number;
  /**
   * For effects: how long after it is sent the subject's own readings may still show the state
   * before it (a metrics pipeline that lags, a replica, a cache). Until then another effect on
   * the same subject is refused (`effect_settling`), and what reads say about the subject in that
   * time is no grounds for one: a restart's metrics read a second later, still saying "memory
   * exhausted", never justify a second restart. Default: 0 (its own reply and readbacks settle it).
   */
  settleMs?: number;
  /**
   * For effects: the business key of what it moves, e.g. the transfer id. When set, the
   * idempotency key is derived from it instead of from the run, so two runs of one case (or
   * a case started twice under new ids) can never apply it twice. `run` names the case, for
   * effects whose only business identity is the case itself (restart this case's cache once).
   * The idempotency key is `effectKey(domain, tool, businessKey)` (controller/effect-keys.ts).
   */
  businessKey?(args: z.infer<I>, run: { caseId: string }): string;
  /** For effects: what must be true before it may run. Without one, only the gate's generic checks apply. */
  precondition?: Precondition<z.infer<I>, W>;
  /**
   * For effects: top-level arguments that are the model's own words (a reason, a comment).
   * Every other argument value must cite its source (see argKinds); a link or account number
   * inside one leaves only from a trusted source.
   */
  narrativeArgs?: string[];
  /** For effects: who may approve it; without this the gate admits it on its own. */
  approval?: ApprovalRule;
  /**
   * For effects behind approval: what the approver should see beside the call, as labelled
   * strings (`amount: 125.00 EUR`, `ledger: FAILED (e3)`). Computed by the controller when the
   * request is raised, from the call's arguments without its narrative ones and the facts of
   * the evidence about its subject, never from outside text. The signed digest covers them with
   * the call. At most 12 entries of 200 characters; a hook that throws is dropped.
   */
  display?(args: z.infer<I>, evidence: EvidenceView[]): Record<string, string>;
  /**
   * Control-relevant facts, keyed so that a newer reading of the same thing replaces the older.
   * Default: none (nothing the tool says becomes control state).
   */
  facts(output: z.infer<O>): Facts;
  /** When the source says its data holds (ISO time); absent means "as of the call". Default: as of the call. */
  effectiveAt(output: z.infer<O>): string | undefined;
  /**
   * Free-text fields: never control state, shown to the model only as quoted data. Default:
   * the whole output, one quoted `path: value` line per value (untrusted text, whatever it
   * holds); declare it to quote only what the model should read, e.g. `[]` when the facts say
   * everything.
   */
  freeText(output: z.infer<O>): string[];
}

/** The parts of a tool that have a default, stated on each in ToolContract. */
type DefaultedPart = 'idempotent' | 'source' | 'authority' | 'maxAgeMs' | 'maxObservationBytes' | 'facts' | 'effectiveAt' | 'freeText';

/**
 * A tool as its author writes it for defineTool: name, description, input, output and kind (and
 * an effect's readback); every other part is optional, with the conservative default stated on
 * it in ToolContract.
 */
export type ToolDefinition<
  I extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
  N extends string = string,
  R extends string = string,
  K extends ToolKind = ToolKind,
  W extends string = string,
> = Omit<ToolContract<I, O, N, R, K, W>, DefaultedPart> & Partial<Pick<ToolContract<I, O, N, R, K, W>, DefaultedPart>>;

export type ToolKind = 'read' | 'effect';

/** Names the controller gives its own decisions; a tool under one could never be called. */
export const RESERVED_TOOL_NAMES = ['finish', 'escalate'] as const;
type ReservedToolName = (typeof RESERVED_TOOL_NAMES)[number];

/**
 * What the kind requires: an effect names the readback that tells, by idempotency key, whether
 * it happened (its outcome is read back, never guessed); a read has none of an effect's parts.
 */
type KindRules<K extends ToolKind, R extends string> = K extends 'effect'
  ? { readback: R; egress?: never }
  : {
      readback?: never;
      businessKey?: never;
      precondition?: never;
      narrativeArgs?: never;
      approval?: never;
      display?: never;
      confirmByReadback?: never;
      commitWindowMs?: never;
    };
type NameRules<N extends string> = N extends ReservedToolName ? { name: `the tool name '${N}' is the engine's own decision` } : unknown;

/**
 * Defines a tool from five parts (name, description, input, output, kind; an effect also names
 * its readback) and fills every part left out with its default (see ToolContract). Its name,
 * input, output, readback, kind and reread types stay with it, and what the types can tell is
 * checked here (see KindRules). `defineDomain` checks the rest when the domain is defined.
 *
 * @example
 * const readOrder = defineTool({
 *   name: 'read_order',
 *   description: 'The order as the order book has it.',
 *   input: z.strictObject({ orderId: z.string() }),
 *   output: z.object({ status: z.string() }),
 *   kind: 'read',
 * });
 * const refund = defineTool({
 *   name: 'refund',
 *   description: 'Refund an order once.',
 *   input: z.strictObject({ orderId: z.string() }),
 *   output: z.object({ refundId: z.string() }),
 *   kind: 'effect',
 *   readback: 'read_refund',
 * });
 */
export function defineTool<
  I extends z.ZodType,
  O extends z.ZodType,
  const N extends string,
  const K extends ToolKind,
  const R extends string = never,
  const W extends string = never,
>(definition: ToolDefinition<I, O, N, R, K, W> & KindRules<K, R> & NameRules<N>): ToolContract<I, O, N, R, K, W> & KindRules<K, R> {
  return withDefaults(definition as ToolDefinition) as ToolContract<I, O, N, R, K, W> & KindRules<K, R>;
}

/** The definition with each part it leaves out set to that part's default (see ToolContract). */
function withDefaults(tool: ToolDefinition): ToolContract {
  return {
    ...tool,
    idempotent: tool.idempotent ?? tool.kind === 'read',
    source: tool.source ?? tool.name,
    authority: tool.authority ?? 'secondary',
    maxAgeMs: tool.maxAgeMs ?? DEFAULT_MAX_AGE_MS,
    maxObservationBytes: tool.maxObservationBytes ?? DEFAULT_MAX_OBSERVATION_BYTES,
    facts: tool.facts ?? noFacts,
    effectiveAt: tool.effectiveAt ?? asOfTheCall,
    freeText: tool.freeText ?? quoteAll,
  };
}

function noFacts(): Facts {
  return {};
}

function asOfTheCall(): undefined {
  return undefined;
}

/** Every value of an output as a `path: value` line, in the output's own order: all of it untrusted text. */
function quoteAll(output: unknown): string[] {
  const lines: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}[${i}]`));
    else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) walk(item, path ? `${path}.${key}` : key);
    else if (value !== undefined) lines.push(path ? `${path}: ${String(value)}` : String(value));
  };
  walk(output, '');
  return lines;
}

/** Any tool, whatever its types: what a domain's list holds. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolContract<any, any, string, string, ToolKind, string>;

/** An observation as a domain's judgements see it: its tool, source, authority, freshness (judged now), status and facts. */
export interface EvidenceView {
  id: string;
  tool: string;
  source: string;
  authority: Authority;
  fresh: boolean;
  status: 'ok' | 'error' | 'timeout' | 'unknown';
  facts: Facts;
  /** What the observation is about (absent in runs recorded before subjects existed). */
  subject?: string;
}

/** An effect the run has done (applied), as a finish is judged against it. */
export interface DoneEffect {
  tool: string;
  subject?: string;
  args: unknown;
}

/** Where a run stands, for Domain.nextStep: its evidence (oldest first) and the effects it applied. */
export interface NextStepView {
  caseId: string;
  evidence: EvidenceView[];
  done: DoneEffect[];
}

/** A call a route decides: a tool of the domain and its arguments (checked by the gate like any proposal). */
export interface RouteCall {
  tool: string;
  args: unknown;
  /** Where an argument's value comes from, by reference (`{ toVersion: 'e8.api.previousVersion' }`): required for an argument with a kind. */
  sources?: Record<string, string | string[]>;
}

/**
 * What a domain's route says at one point of a run: the step it takes (calls, a finish, an
 * escalation), with a short reason for the receipt; or `open`: what it cannot settle (a fact
 * missing, sources in conflict, a case its runbook does not know), which is where a model is
 * asked (shape `hybrid`) or the run escalates (shape `workflow`).
 */
export type RouteStep =
  { call: RouteCall[]; why: string } | { finish: { claim: unknown; evidence: string[] }; why: string } | { escalate: string } | { open: string[] };

/** Where a run stands, for a route: its evidence (judged as the gate judges grounds for an effect), what it applied, and the last refusal. */
export interface RouteView extends NextStepView {
  /** The controller's last feedback in this run (a refused call, a finish the probe rejected), if any. */
  feedback?: { code: string; message: string };
}

/**
 * A domain's known route: what it knows how to do without asking anyone. Workflow code, pure
 * over facts (the view holds no outside text). Whatever it decides is judged exactly as a
 * model's proposal: the gate, preconditions, provenance, approvals, budgets and the probe.
 */
export interface DomainRoute {
  /** Reads that always run first, all at once, before anyone is asked. */
  first?(caseId: string): RouteCall[];
  /** The reads that show what an applied effect did (metrics after a restart). */
  after?(effect: DoneEffect): RouteCall[];
  /** The next step where the route knows it, else what is open. Consider what the system of record already says. */
  decide(view: RouteView): RouteStep;
}

/** A finished run, for Domain.summarize: what it saw and did, and how it ended. */
export interface SummaryView extends NextStepView {
  terminal: { class: string; reason: string };
}

/**
 * How a domain judges a finish against what the run did (Domain.judgeDone). A refusal may say
 * that the evidence shows the work done by an earlier run of the case (`doneEarlier`: which
 * effect, by its record id or key): the finish is then accepted, and once the live probe
 * confirms the claim the run ends `resolved` / `already_done` with that detail, instead of
 * trying again what the system of record would refuse.
 */
export type DoneVerdict = { ok: true } | { ok: false; reason: string; doneEarlier?: string };

/** How a domain judges a claimed finish against evidence alone, before the live probe runs. */
export type EvidenceVerdict = { kind: 'supported' } | { kind: 'unsupported'; reason: string } | { kind: 'conflict'; reason: string };

/** A run's limits: turns, tool calls, effects, duplicate calls, tokens, wall-clock time and (optionally) money. */
export const Budgets = workerScoped('contract.Budgets', () =>
  z.strictObject({
    turns: z.number().int(),
    toolCalls: z.number().int(),
    effects: z.number().int(),
    duplicates: z.number().int(),
    tokens: z.number().int(),
    /** Wall-clock limit from the start of the run; the clock stops while a person decides. */
    deadlineMs: z.number().int(),
    /**
     * Money the run's model calls may cost, in millionths of the price table's currency
     * (activities/spend/prices.ts). Absent: no spend limit (and in runs recorded before it).
     */
    spendMicros: z.number().int().optional(),
  }),
);
export type Budgets = z.infer<typeof Budgets>;

/** What the model is shown of the run each turn: everything (`full`), the last N entries (`window`), or those and the latest value of every fact (`window_pinned`). */
export const ContextStrategy = workerScoped('contract.ContextStrategy', () => z.enum(['full', 'window', 'window_pinned']));
export type ContextStrategy = z.infer<typeof ContextStrategy>;

/**
 * A domain: its tools, what a valid case id is, the shape of a finish's claim and how a finish
 * is judged against the evidence and the effects the run applied, and its default budgets.
 * Made with defineDomain, which checks it.
 */
export interface Domain<T extends readonly AnyTool[] = readonly AnyTool[], C extends z.ZodType = z.ZodType> {
  name: string;
  goal(caseId: string): string;
  tools: T;
  /** What a valid case id looks like; a start with any other is refused before a run exists. */
  caseId?: z.ZodType<string>;
  /** The shape of `finish.claim` for this domain. */
  claim: C;
  /** What a claim is about; only evidence and effects about it are judged. Default: the case. */
  claimSubject?(claim: z.infer<C>, caseId: string): string;
  /**
   * Fresh, authoritative evidence must support the claim; disagreeing sources are a conflict.
   * `cited` and `all` hold only evidence about the claim's subject.
   */
  judgeEvidence(claim: z.infer<C>, cited: EvidenceView[], all: EvidenceView[]): EvidenceVerdict;
  /**
   * A finish is checked against what the run did, not only against what it saw: `done` holds
   * the effects it applied to the claim's subject. A claim of a remediation nobody made fails here.
   * `view` holds the case and the run's evidence about the subject (judged fresh now), where a
   * domain finds work an earlier run did: refuse with `doneEarlier` naming it (see DoneVerdict).
   */
  judgeDone?(claim: z.infer<C>, done: DoneEffect[], view: NextStepView): DoneVerdict;
  /**
   * The domain's runbook, as a hint: given what the run has seen and done, the step a careful
   * operator would take next (`read get_deploys {"service":"api"}`). Shown to the model beside
   * the budgets every turn. A hint grants nothing: every call still passes the gate. Derive it
   * from facts only; the view holds no outside text. Small models follow it where they would
   * otherwise circle; return undefined when there is nothing to suggest.
   */
  nextStep?(view: NextStepView): string | undefined;
  /**
   * The domain's known route (see DomainRoute): in a run of shape `workflow` it decides every
   * step, in `hybrid` every step it can, and the model is asked only where it says `open`.
   */
  route?: DomainRoute;
  /**
   * What a finished run did, in the domain's words, for the operator's headline (`reissued
   * PX-1042 as rsi_…; the ledger still has PX-1042 FAILED`). The engine adds how the run ended.
   * Facts only, as for nextStep; one line of at most 200 characters; a hook that throws or
   * returns nothing leaves the engine's own summary of the effects ledger.
   */
  summarize?(view: SummaryView): string | undefined;
  /**
   * Whose signed notes are an operator's word (trusted text the model may rely on, a trusted
   * source for effect arguments): directory keys with one of these roles. Default: the roles
   * that may approve this domain's effects. A note signed by any other key is untrusted text.
   */
  noteRoles?: readonly string[];
  /**
   * Resolved means it stayed fixed: once the probe holds, the run waits `windowMs` on a durable
   * timer (a worker restart or a deploy changes nothing) and asks the probe again, handing it the
   * window (`ctx.soak`), so it can check the condition was false the whole time (Prometheus:
   * `max_over_time(ALERTS{...}[window])`). Only a probe that holds again resolves the run; if the
   * condition came back, `onRefire` says whether the run goes back to work or escalates.
   */
  soak?: SoakRule;
  /**
   * Who is asked when a call would carry a value no trusted source vouches for (one only a file,
   * a web page or an unsigned note supplied, or one the model wrote): the call goes to a person
   * instead of being refused, and the card names where each such value was seen (the read and its
   * evidence id). An effect with an approval rule of its own asks under that rule; an egress read
   * or an effect without one, under this. Without it (the default) such a call is refused.
   */
  askWhenUnvouched?: ApprovalRule;
  /**
   * What the run puts back as it ends, however it ends (a finish, an escalation, a cancel, a
   * spent budget, the deadline): effect tools of this domain, idempotent and taking no
   * arguments, each made when `needed` says so of the run as it ended (lift a silence it set,
   * release a lock it took). They go out after the run's last word, outside its budgets, shielded
   * from a cancel; what became of each is in the run's result (`closing`). Default: none.
   */
  closing?: readonly { tool: string; needed(view: RouteView): boolean }[];
  /**
   * A run's budgets and context when its start does not set them; each part that is left out
   * takes the engine's (DOMAIN_DEFAULTS: 12 turns, 20 tool calls, 1 effect, 2 duplicates,
   * 100,000 tokens, a 10-minute deadline; the last 8 entries of the run and the latest value of
   * every fact, `window_pinned`).
   */
  defaults?: { budgets?: Partial<Budgets>; context?: ContextStrategy; window?: number };
}

/** What a domain that states no defaults runs with (Domain.defaults): small, so a run that loops stops soon. */
export const DOMAIN_DEFAULTS: { budgets: Budgets; context: ContextStrategy; window: number } = {
  budgets: { turns: 12, toolCalls: 20, effects: 1, duplicates: 2, tokens: 100_000, deadlineMs: 10 * 60_000 },
  context: 'window_pinned',
  window: 8,
};

/** The domain's defaults with the engine's filling every part it leaves out. */
export function domainDefaults(domain: Pick<Domain, 'name' | 'defaults'>): { budgets: Budgets; context: ContextStrategy; window: number } {
  const given = domain.defaults;
  return {
    budgets: { ...DOMAIN_DEFAULTS.budgets, ...given?.budgets },
    context: given?.context ?? DOMAIN_DEFAULTS.context,
    window: given?.window ?? DOMAIN_DEFAULTS.window,
  };
}

export interface SoakRule {
  windowMs: number;
  onRefire: 'resume' | 'escalate';
}

/** The roles whose signed notes count as an operator's word in `domain` (see Domain.noteRoles). */
export function noteRolesOf(domain: Pick<Domain, 'noteRoles' | 'tools' | 'askWhenUnvouched'>): readonly string[] {
  return domain.noteRoles ?? [...new Set([...domain.tools.flatMap((t) => t.approval?.roles ?? []), ...(domain.askWhenUnvouched?.roles ?? [])])];
}

/** The names of the reads among a domain's tools (where each tool's kind is known to the types). */
type ReadNames<T extends readonly AnyTool[]> = Extract<T[number], { kind: 'read' }>['name'];
/** Each reread a tool's precondition names that is not a read of the domain, as a message. */
type BadRereads<T extends readonly AnyTool[]> = {
  [P in keyof T]: T[P] extends ToolContract<z.ZodType, z.ZodType, infer N, string, ToolKind, infer W>
    ? string extends W
      ? never // a tool whose reread name the types do not know: validateDomain checks it
      : [W] extends [never]
        ? never
        : W extends ReadNames<T>
          ? never
          : `${N}: its precondition rereads '${W}', which is not a read of this domain`
    : never;
}[number];
/** A compile error naming each precondition that rereads something that is not a read of the domain (used by defineDomain). */
export type RereadRules<T extends readonly AnyTool[]> = [BadRereads<T>] extends [never] ? unknown : { tools: BadRereads<T> };

/** The subject of anything not otherwise about something narrower. */
export function caseSubject(caseId: string): string {
  return `case:${caseId}`;
}
