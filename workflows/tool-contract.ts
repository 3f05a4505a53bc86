// What a tool promises: its input and output, its kind (a read, or an effect with the readback
// that tells whether it happened), where its answers come from and how far they are trusted,
// and the checks, derivations and approvals that bound its calls. defineTool fills in every part
// left out (define-tool.ts). Workflow-safe: zod and plain data only, so the controller can check proposals inside
// the workflow sandbox and activities can share it.
import { z } from 'zod';
import { workerScoped } from './worker-scoped.js';

/** How far a tool's source may be trusted: `authoritative` (the system of record), `secondary`, `untrusted`. */
export const Authority = workerScoped('contract.Authority', () => z.enum(['authoritative', 'secondary', 'untrusted']));
export type Authority = z.infer<typeof Authority>;

/** A fact the controller may reason about: scalar values only, never free text. */
export type FactValue = string | number | boolean | null;
/** A tool's facts: named scalar values, e.g. `{ 'order.status': 'OPEN' }`. */
export type Facts = Record<string, FactValue>;

/** An observation as a tool's precondition and a domain's judgements see it: its tool, source, authority, freshness (judged now), status and facts. */
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

/** A read observes; an effect changes the world, and its outcome is read back, never guessed. */
export type ToolKind = 'read' | 'effect';

/** Any tool, whatever its types: what a domain's list holds. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolContract<any, any, string, string, ToolKind, string>;
