// Admission: whether a call may reach the world, decided in one place. The checks below run in
// order, each named for what it guarantees and tagged with when it runs: when the model proposes
// (`proposal`), and again just before an approved effect is dispatched (`dispatch`), hours later
// perhaps, when the budget, the effects in flight and the evidence may all have changed. The
// first check that fails decides; a refusal is a value (fed back to the model, or a stop when
// repeating it would be unsafe), never an exception. docs/life-of-a-run.md shows this list as a
// table, and test/unit/admission-table.test.ts holds one failing case per code, at each stage.
//
// What a check at dispatch does not re-judge: whether the values are vouched for. The approved
// call's values are the person's decision on that call (provenance.ts, rule 4).
import type { Domain } from '../contract.js';
import type { PreconditionVerdict, ToolContract } from '../tool-contract.js';
import { callSignature, overBudget, repeatRefusal } from './bounds.js';
import { describeIssues, type Decision } from './decision.js';
import { keyFor } from './effect-keys.js';
import { judgeFlow, type Asking, type Proposal } from './provenance.js';
import { effectsInDoubt, type PlannedCall, type RunState } from './state.js';
import { checkPrecondition, settledAt, subjectOfCall } from './subject.js';

export type { Asking } from './provenance.js';

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

export type Refused = Exclude<Admission, { kind: 'admit' }>;

export type Stage = 'proposal' | 'dispatch';

/** The calls being judged, as far as the checks so far have taken them. */
export interface Candidate {
  readonly state: RunState;
  readonly domain: Domain;
  readonly now: number;
  readonly stage: Stage;
  /** The calls as proposed, with what the proposal says of their sources. */
  readonly proposed: readonly (Proposal & { tool: string })[];
  contracts: ToolContract[];
  planned: PlannedCall[];
  ask?: Asking;
  precondition?: PreconditionVerdict;
  /** Dispatch only: the violation the approver was shown and accepted (nothing else that fails). */
  acceptedViolation?: string;
}

export interface AdmissionCheck {
  /** What it guarantees, in a few words (the docs table's column). */
  name: string;
  /** Every code it refuses or stops with. */
  codes: readonly string[];
  at: readonly Stage[];
  /** Judges evidence that the approved call's re-read renews: at dispatch it waits for the re-read. */
  onFreshEvidence?: true;
  run(candidate: Candidate): Candidate | Refused;
}

/** The checks, in the order they run. */
export const ADMISSION_CHECKS: readonly AdmissionCheck[] = [
  {
    name: "the tool is one of the domain's",
    codes: ['unknown_tool'],
    at: ['proposal'],
    run(c) {
      const contracts: ToolContract[] = [];
      for (const { tool } of c.proposed) {
        const contract = c.domain.tools.find((t) => t.name === tool);
        if (!contract) return refuse('unknown_tool', `no tool named ${JSON.stringify(tool)}; tools are ${c.domain.tools.map((t) => t.name).join(', ')}`);
        contracts.push(contract);
      }
      return { ...c, contracts };
    },
  },
  {
    name: 'the arguments parse under the contract (and give a business key, if it has one)',
    codes: ['invalid_arguments'],
    at: ['proposal'],
    run(c) {
      const planned: PlannedCall[] = [];
      for (const [index, contract] of c.contracts.entries()) {
        const args = contract.input.safeParse(c.proposed[index]?.args);
        if (!args.success) return refuse('invalid_arguments', `${contract.name}: ${describeIssues(args.error.issues)}`);
        const callId = `c${c.state.seq + index + 1}`;
        const key = contract.kind === 'effect' ? keyFor(c.state, contract, args.data, callId) : undefined;
        if (key === null) return refuse('invalid_arguments', `${contract.name}: its business key cannot be derived from these arguments`);
        const subject = subjectOfCall(contract, args.data, c.state.caseId);
        planned.push({
          callId,
          turn: c.state.turn,
          tool: contract.name,
          args: args.data,
          kind: contract.kind,
          idempotent: contract.idempotent,
          ...(key ? { idempotencyKey: key } : {}),
          ...(subject ? { subject } : {}),
          ...(contract.kind === 'effect' && contract.settleMs ? { settleMs: contract.settleMs } : {}),
        });
      }
      return { ...c, planned };
    },
  },
  {
    name: 'no call twice in one turn',
    codes: ['duplicate_in_turn'],
    at: ['proposal'],
    run(c) {
      const signatures = c.planned.map((call) => callSignature(call.tool, call.args));
      const twice = c.planned.find((_, i) => signatures.indexOf(signatures[i] as string) !== i);
      return twice ? refuse('duplicate_in_turn', `${twice.tool} is asked twice with the same arguments`, true) : c;
    },
  },
  {
    name: 'an effect is proposed alone',
    codes: ['parallel_effect'],
    at: ['proposal'],
    run: (c) =>
      c.planned.length > 1 && c.planned.some((call) => call.kind === 'effect')
        ? refuse('parallel_effect', 'an effect must be proposed alone, not alongside other calls')
        : c,
  },
  {
    name: 'the budgets allow it (tool calls, effects)',
    codes: ['over_budget'],
    at: ['proposal', 'dispatch'],
    run(c) {
      const short = overBudget(c.state, c.planned);
      return short ? refuse('over_budget', short) : c;
    },
  },
  {
    name: 'no earlier effect is in doubt',
    codes: ['effect_in_doubt'],
    at: ['proposal', 'dispatch'],
    run: (c) => (effectsInDoubt(c.state).length > 0 ? refuse('effect_in_doubt', 'an earlier effect has not been settled yet') : c),
  },
  {
    name: 'not a repeat with nothing new: a nudge, then the run stops; an effect, refused, then `blocked`',
    codes: ['loop_nudge', 'effect_guard', 'loop'],
    at: ['proposal'],
    run(c) {
      for (const call of c.planned) {
        const refusal = repeatRefusal(c.state, call, c.now);
        if (refusal) return refusal;
      }
      return c;
    },
  },
  {
    // Sent again (after new evidence, which the effect guard allows), the system of record would only answer with the first result.
    name: 'an effect whose key this run applied is done',
    codes: ['already_applied'],
    at: ['proposal', 'dispatch'],
    run(c) {
      const keys = new Set(c.planned.flatMap((call) => (call.idempotencyKey ? [call.idempotencyKey] : [])));
      const done = c.state.effects.find((e) => e.status === 'applied' && keys.has(e.key));
      return done ? refuse('already_applied', `${done.tool} under key ${done.key} already took effect in this run (${done.callId}); it is done`, true) : c;
    },
  },
  {
    name: 'the last effect on its subject has settled (ToolContract.settleMs)',
    codes: ['effect_settling'],
    at: ['proposal', 'dispatch'],
    run(c) {
      for (const call of c.planned) {
        if (call.kind !== 'effect' || call.subject === undefined) continue;
        const until = settledAt(c.state, call.subject);
        if (until === undefined || c.now >= until) continue;
        const message = `the last effect on ${call.subject} settles at ${new Date(until).toISOString()}: until then its readings may still show the state before it, and no second effect goes out on them; read again after that, or finish and let the probe judge`;
        // About the time, not the call: the same call once settled is judged afresh (not remembered as refused).
        return refuse('effect_settling', message);
      }
      return c;
    },
  },
  {
    name: "the run's permissions allow the effect",
    codes: ['not_permitted'],
    at: ['proposal', 'dispatch'],
    run(c) {
      // A run started with narrowed permissions (an investigation) takes no effect outside them.
      const permitted = c.state.permittedEffects;
      const call = permitted && c.planned.find((p) => p.kind === 'effect' && !permitted.includes(p.tool));
      if (!permitted || !call) return c;
      const allowed = permitted.length ? `only ${permitted.join(', ')}` : 'no effects at all (read-only)';
      const message = `${call.tool} is not permitted in this run, which was started with ${allowed}; if it is the right step, escalate and recommend it to a person`;
      return refuse('not_permitted', message, false, callSignature(call.tool, call.args));
    },
  },
  {
    name: 'every argument traces to a source: cited, vouched for, or put to a person alone (provenance.ts)',
    codes: ['cite_source', 'tainted_argument', 'ask_alone'],
    at: ['proposal'],
    run(c) {
      const planned = [...c.planned];
      let ask: Asking | undefined;
      for (const [index, contract] of c.contracts.entries()) {
        const call = planned[index];
        // A read that reaches outside the run carries its arguments out as an effect would.
        if (!call || (contract.kind === 'read' && !contract.egress)) continue;
        const { derive, sources } = c.proposed[index] ?? {};
        const flow = judgeFlow(c.state, c.domain, contract, { call, args: call.args, derive, sources }, planned.length === 1, c.now);
        if (!flow.ok) return refuse(flow.code, flow.message, false, flow.signature);
        planned[index] = flow.call;
        ask ??= flow.ask;
      }
      return { ...c, planned, ...(ask ? { ask } : {}) };
    },
  },
  {
    name: 'the precondition holds on fresh evidence about its subject',
    codes: ['precondition_failed'],
    at: ['proposal', 'dispatch'],
    onFreshEvidence: true,
    run(c) {
      const [contract] = c.contracts;
      const [call] = c.planned;
      if (!contract || !call || contract.kind !== 'effect') return c;
      const verdict = checkPrecondition(c.state, contract, call, c.now);
      if (verdict.ok) return c;
      // At proposal a contract may turn a violation into an approval request that states it; at
      // dispatch the approver accepted the violation they were shown, not whatever holds now.
      if (c.stage === 'proposal' && contract.precondition?.onViolation === 'approval' && contract.approval) return { ...c, precondition: verdict };
      if (c.stage === 'dispatch' && verdict.reason === c.acceptedViolation) return c;
      const message = c.stage === 'proposal' ? `${contract.name} refused: ${verdict.reason}` : verdict.reason;
      return refuse('precondition_failed', message, false, callSignature(call.tool, call.args));
    },
  },
];

type CallDecision = Extract<Decision, { type: 'call' }>;

/** A proposal, judged by every check that runs at proposal time. */
export function admitCalls(state: RunState, domain: Domain, decision: CallDecision, now: number): Admission {
  const candidate: Candidate = { state, domain, now, stage: 'proposal', proposed: decision.calls, contracts: [], planned: [] };
  return admit(candidate, ADMISSION_CHECKS);
}

/**
 * An approved effect, judged again just before it goes out. `beforeReread`: the approval has just
 * closed and the contract's re-read is still to come, so the checks on evidence wait for it.
 */
export function admitForDispatch(
  state: RunState,
  domain: Domain,
  call: PlannedCall,
  now: number,
  options: { acceptedViolation?: string | undefined; beforeReread?: boolean } = {},
): Admission {
  const contract = domain.tools.find((t) => t.name === call.tool);
  if (!contract) return refuse('unknown_tool', `no tool named ${JSON.stringify(call.tool)}`);
  const candidate: Candidate = {
    state,
    domain,
    now,
    stage: 'dispatch',
    proposed: [{ tool: call.tool, args: call.args }],
    contracts: [contract],
    planned: [call],
    ...(options.acceptedViolation ? { acceptedViolation: options.acceptedViolation } : {}),
  };
  return admit(candidate, options.beforeReread ? ADMISSION_CHECKS.filter((check) => !check.onFreshEvidence) : ADMISSION_CHECKS);
}

function admit(start: Candidate, checks: readonly AdmissionCheck[]): Admission {
  let candidate = start;
  for (const check of checks) {
    if (!check.at.includes(start.stage)) continue;
    const outcome = check.run(candidate);
    if ('kind' in outcome) return outcome;
    candidate = outcome;
  }
  const { planned, ask, precondition } = candidate;
  return { kind: 'admit', calls: planned, ...(precondition ? { precondition } : {}), ...(ask ? { ask } : {}) };
}

export function refuse(code: string, message: string, duplicate = false, signature?: string): Refused {
  return { kind: 'refuse', code, message, duplicate, ...(signature ? { signature } : {}) };
}
