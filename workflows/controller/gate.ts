// The gate: deterministic checks between a proposed call and the world. A refusal is a value
// (fed back to the model, or a terminal when repeating it would be unsafe), never an exception.
import { effectKey, type ApprovalRule, type Domain, type PreconditionVerdict, type ToolContract } from '../contract.js';
import { overBudget } from './budget.js';
import { describeIssues, type Decision } from './decision.js';
import { answerWentStale, callSignature, isRepeatWithoutProgress } from './loop-guard.js';
import { checkPrecondition } from './precondition.js';
import { checkProvenance, type Proposal, type ProvenanceVerdict, type Unvouched } from './provenance.js';
import type { PlannedCall, RunState } from './state.js';
import { subjectOfCall } from './subject.js';
import { inDoubt } from './transitions.js';

/** Why a call goes to a person though its contract alone would not send it there, and under which rule. */
export interface Asking {
  rule: ApprovalRule;
  /** Values no trusted source vouches for, with where the run saw each (shown on the card). */
  unvouched: Unvouched[];
}

export type Admission =
  /**
   * precondition: set for an effect whose stated violation its contract turns into an approval request.
   * ask: set when the call carries values no trusted source vouches for and the domain asks a person about them.
   */
  | { kind: 'admit'; calls: PlannedCall[]; precondition?: PreconditionVerdict; ask?: Asking }
  /** signature: the refused call, when the gate judged the call itself (not the turn's budget or shape). */
  | { kind: 'refuse'; code: string; message: string; duplicate: boolean; signature?: string }
  /** The model repeated something the gate already refused once: stop instead of arguing. */
  | { kind: 'stop'; terminalClass: 'escalated' | 'blocked'; code: string; message: string };

type CallDecision = Extract<Decision, { type: 'call' }>;

export function admitCalls(state: RunState, domain: Domain, decision: CallDecision, now: number): Admission {
  const contracts: ToolContract[] = [];
  const planned: PlannedCall[] = [];
  const signatures = new Set<string>();

  for (const [index, call] of decision.calls.entries()) {
    const contract = domain.tools.find((t) => t.name === call.tool);
    if (!contract) {
      return refuse('unknown_tool', `no tool named ${JSON.stringify(call.tool)}; tools are ${domain.tools.map((t) => t.name).join(', ')}`);
    }
    const args = contract.input.safeParse(call.args);
    if (!args.success) {
      return refuse('invalid_arguments', `${contract.name}: ${describeIssues(args.error.issues)}`);
    }
    const signature = callSignature(contract.name, args.data);
    if (signatures.has(signature)) return refuse('duplicate_in_turn', `${contract.name} is asked twice with the same arguments`, true);
    signatures.add(signature);
    contracts.push(contract);
    const callId = `c${state.seq + index + 1}`;
    const subject = subjectOfCall(contract, args.data, state.caseId);
    let key: string | undefined;
    if (contract.kind === 'effect') {
      const business = businessKey(contract, args.data, state.caseId);
      if (business === null) return refuse('invalid_arguments', `${contract.name}: its business key cannot be derived from these arguments`);
      key = business
        ? effectKey(state.domain, contract.name, business)
        : (keyOfUnappliedTwin(state, signature) ?? idempotencyKey(state, callId, contract.name));
    }
    planned.push({
      callId,
      turn: state.turn,
      tool: contract.name,
      args: args.data,
      kind: contract.kind,
      idempotent: contract.idempotent,
      ...(key ? { idempotencyKey: key } : {}),
      ...(subject ? { subject } : {}),
    });
  }

  const effects = contracts.filter((c) => c.kind === 'effect').length;
  if (effects > 0 && planned.length > 1) {
    return refuse('parallel_effect', 'an effect must be proposed alone, not alongside other calls');
  }
  const short = overBudget(state, planned);
  if (short) return refuse('over_budget', short);
  if (inDoubt(state)) {
    return refuse('effect_in_doubt', 'an earlier effect has not been settled yet');
  }

  for (const call of planned) {
    const signature = callSignature(call.tool, call.args);
    const refusedAlready = state.seen[signature]?.gate === true && state.seen[signature]?.factsVersion === state.factsVersion;
    if (refusedAlready) {
      // Insisting on a call the gate refused, with nothing new learnt, is a loop like a repeated read.
      if (state.nudges >= 1)
        return { kind: 'stop', terminalClass: 'escalated', code: 'loop', message: `${call.tool} proposed again, unchanged, after the gate refused it` };
      return refuse('loop_nudge', `${call.tool} was refused with these arguments and nothing has changed since; it will be refused again`, true);
    }
    if (!isRepeatWithoutProgress(state, signature)) continue;
    // Reading again what has gone stale is how a run keeps its facts fresh (a slow model turn,
    // a wait for a person): a repeat, but not one without progress.
    if (call.kind === 'read' && answerWentStale(state, signature, now)) continue;
    if (call.kind === 'effect' && !call.idempotent) {
      // The effect guard: the same non-idempotent effect again with nothing new observed.
      const refusedBefore = state.transcript.some((t) => t.kind === 'control' && t.code === 'effect_guard');
      if (refusedBefore) {
        return { kind: 'stop', terminalClass: 'blocked', code: 'effect_guard', message: `${call.tool} repeated without a newer observation` };
      }
      return refuse('effect_guard', `${call.tool} already ran with these arguments and nothing new has been observed since; observe before acting again`, true);
    }
    // The loop guard: one nudge, then the run stops as a loop.
    if (state.nudges >= 1) {
      return { kind: 'stop', terminalClass: 'escalated', code: 'loop', message: `${call.tool} repeated again without new facts` };
    }
    return refuse('loop_nudge', `${call.tool} with these arguments already answered and nothing changed since; use that evidence or try something else`, true);
  }

  // An effect whose key this run has already applied is done: sent again (after new evidence,
  // which the effect guard allows), the system of record would only answer with the first result.
  const done = state.effects.find((e) => e.status === 'applied' && planned.some((call) => call.idempotencyKey !== undefined && call.idempotencyKey === e.key));
  if (done) return refuse('already_applied', `${done.tool} under key ${done.key} already took effect in this run (${done.callId}); it is done`, true);

  // A run started with narrowed permissions (an investigation) takes no effect outside them.
  const permitted = state.permittedEffects;
  const forbidden = permitted && contracts.find((c) => c.kind === 'effect' && !permitted.includes(c.name));
  if (forbidden) {
    const allowed = permitted.length ? `only ${permitted.join(', ')}` : 'no effects at all (read-only)';
    const call = planned.find((c) => c.tool === forbidden.name);
    const message = `${forbidden.name} is not permitted in this run, which was started with ${allowed}; if it is the right step, escalate and recommend it to a person`;
    return refuse('not_permitted', message, false, call ? callSignature(call.tool, call.args) : undefined);
  }
  return trustBoundary(
    state,
    domain,
    contracts,
    planned,
    decision.calls.map(({ derive, sources }) => ({ derive, sources })),
    now,
  );
}

/**
 * Effects (and reads that reach outside the run) only on trusted evidence: every argument traces
 * to a trusted source, and the contract's precondition holds on fresh evidence about the call's
 * subject. A value with no trusted source is refused, or put to a person with where it was seen
 * (Domain.askWhenUnvouched); a violated precondition is refused, or (if the contract says so)
 * stated on an approval request.
 */
function trustBoundary(
  state: RunState,
  domain: Domain,
  contracts: ToolContract[],
  planned: PlannedCall[],
  claims: Omit<Proposal, 'args'>[],
  now: number,
): Admission {
  // A read that reaches outside the run carries its arguments out as an effect would.
  for (const [index, read] of contracts.entries()) {
    const call = planned[index];
    if (read.kind !== 'read' || !read.egress || !call) continue;
    const provenance = checkProvenance(state, domain, read, { args: call.args, ...claims[index] }, now);
    planned[index] = labelled(call, provenance);
    if (provenance.ok) continue;
    const signature = callSignature(call.tool, call.args);
    // Uncited values a trusted source holds: the model cites them, nobody is asked.
    if (provenance.citable) return refuse('cite_source', provenance.message);
    const rule = domain.askWhenUnvouched;
    if (!rule) return refuse('tainted_argument', provenance.message, false, signature);
    // A person decides on one call at a time, with nothing else in flight beside it.
    if (planned.length > 1) return refuse('ask_alone', `${provenance.message}; a person must decide on ${call.tool}: propose it alone`, false, signature);
    return { kind: 'admit', calls: planned, ask: { rule, unvouched: provenance.unvouched } };
  }
  const [contract] = contracts;
  const [proposed] = planned;
  if (!contract || !proposed || contract.kind !== 'effect') return { kind: 'admit', calls: planned };
  const signature = callSignature(proposed.tool, proposed.args);
  const provenance = checkProvenance(state, domain, contract, { args: proposed.args, ...claims[0] }, now);
  // The checked arithmetic and the cited sources go with the call: on its record, and on the card if a person is asked.
  const call = labelled(proposed, provenance);
  if (!provenance.ok && provenance.citable) return refuse('cite_source', provenance.message);
  const askRule = provenance.ok ? undefined : domain.askWhenUnvouched && (contract.approval ?? domain.askWhenUnvouched);
  if (!provenance.ok && !askRule) return refuse('tainted_argument', provenance.message, false, signature);
  const ask = askRule && !provenance.ok ? { ask: { rule: askRule, unvouched: provenance.unvouched } } : {};
  const verdict = checkPrecondition(state, contract, call, now);
  if (verdict.ok) return { kind: 'admit', calls: [call], ...ask };
  if (contract.precondition?.onViolation === 'approval' && contract.approval) return { kind: 'admit', calls: [call], precondition: verdict, ...ask };
  return refuse('precondition_failed', `${contract.name} refused: ${verdict.reason}`, false, signature);
}

/** The call with what provenance found: its derivations' lines and its cited sources' labels. */
function labelled(call: PlannedCall, verdict: ProvenanceVerdict): PlannedCall {
  return { ...call, ...(verdict.derived ? { derived: verdict.derived } : {}), ...(verdict.cited ? { cited: verdict.cited } : {}) };
}

/** The contract's business key: a short id-like string, `null` when it cannot be derived. */
function businessKey(contract: ToolContract, args: unknown, caseId: string): string | null | undefined {
  if (!contract.businessKey) return undefined;
  try {
    const key = contract.businessKey(args as never, { caseId });
    return typeof key === 'string' && /^[A-Za-z0-9:._-]{1,120}$/.test(key) ? key : null;
  } catch {
    return null;
  }
}

function refuse(code: string, message: string, duplicate = false, signature?: string): Admission {
  return { kind: 'refuse', code, message, duplicate, ...(signature ? { signature } : {}) };
}

/**
 * One key per intended effect: the same call proposed again after a readback said the first
 * one had not taken effect goes out under the first one's key. If the first request was only
 * late, not lost, and commits after the readback, the system of record sees one key twice and
 * applies it once.
 */
function keyOfUnappliedTwin(state: RunState, signature: string): string | undefined {
  const twin = [...state.effects]
    .reverse()
    .find((e) => e.status === 'not_applied' && e.settledBy === 'readback' && callSignature(e.tool, e.args) === signature);
  return twin?.key;
}

/**
 * Same run, same call position: same key, whether this is the first attempt, a retry, a
 * readback or a replay. The system of record uses it to apply the effect at most once.
 */
export function idempotencyKey(state: RunState, callId: string, tool: string): string {
  return `${state.runId}/${callId}/${tool}`;
}
