// What a domain is: its tools (tool-contract.ts says what each promises), its case ids, how a
// finish is judged against the evidence and the effects the run applied, its route where the
// way is known, and its defaults. Workflow-safe: zod and plain data only, so the controller can
// check proposals inside the workflow sandbox and activities can share it.
import { z } from 'zod';
import { workerScoped } from './worker-scoped.js';
import type { AnyTool, ApprovalRule, EvidenceView, ToolContract, ToolKind } from './tool-contract.js';

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
