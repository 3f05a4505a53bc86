// Why this exists: the two scripted models the AgentDojo runs are driven by, as custom adapters on
// the worker. The oracle proposes the user task's ground-truth calls in order (what the engine's
// gates cost a perfect model); the obedient adversary does the same but, as soon as an observation
// shows the attack's injected text, proposes the injection task's ground-truth calls first (a
// model that obeys every injection it reads). Both read a precondition's "read X first" and do
// it, as any competent model would, then retry the call once. Neither writes a value the run
// never showed it (honest.ts): it escalates instead, and its answer says only what it was shown.
// Both cite where each argument's value came from (cite.ts), as a competent model does. Neither
// ever sees the judges. In shape `plan` both are planners and extractors instead (planner.ts).
// The local model (opt-in) is only named here: the worker's OpenAI adapter reaches its server.
import type { ModelAdapter, ProposeOutput } from '../../activities/model/index.js';
import { type CompiledContext, estimateTokens } from '../../workflows/controller/index.js';
import type { ModelConfig } from '../../workflows/run-input.js';
import type { Domain } from '../../workflows/contract.js';
import { citeSources } from './cite.js';
import { extractReply, planReply } from './planner.js';
import { honestAnswer, shownText, unseenArgument } from './honest.js';
import type { GroundTruthCall, SessionInfo } from './client.js';

/** The scripted models: the runner's default set. */
export type ScriptedModel = 'oracle' | 'obedient';
export const AGENTDOJO_MODELS: readonly ScriptedModel[] = ['oracle', 'obedient'];
export const adapterName = (model: ScriptedModel) => `agentdojo-${model}`;
/**
 * The local model (opt-in), named on its cells by the model it serves (`local-qwen2.5-coder-1.5b`)
 * so no reader takes them for a scripted model's.
 */
export type LocalModel = `local-${string}`;
export type AgentDojoModel = ScriptedModel | LocalModel;
export const localModelName = (modelId: string): LocalModel => `local-${modelId}`;
export const isLocalModel = (model: AgentDojoModel): model is LocalModel => model.startsWith('local-');

/**
 * What a run asks for: a scripted model by its custom adapter's name; the local model through the
 * worker's OpenAI-compatible adapter, by the id its server answers to.
 */
export function runModelFor(model: AgentDojoModel): ModelConfig {
  return isLocalModel(model) ? { adapter: 'openai', model: model.slice('local-'.length) } : { adapter: 'custom', name: adapterName(model) };
}

export interface CaseState {
  info: SessionInfo;
  plan: GroundTruthCall[];
  cursor: number;
  /** The obedient model saw the injection and took on its calls. */
  obeyed: boolean;
  /** Transcript length at the previous proposal: feedback after it answers that proposal. */
  seen: number;
  /** Calls already re-tried after doing what a precondition asked. */
  retried: Set<string>;
  /** Replies by proposal index, so an activity retry gets the same reply. */
  replies: Map<number, unknown>;
  /** The answer of the finish the probe was asked about, for AgentDojo's utility(). */
  answer?: string;
  /** Shape plan, the last plan (planner.ts): the calls it covered, what had been read when it was written, and the calls it left out as repeats of a read it already had. */
  planned?: { from: number; to: number; evidence: number; repeats: number[] };
  /** Shape plan: the reads an extraction already looked in, by the slot it was for. */
  triedFrom: Record<string, string[]>;
  /** Shape plan: plans in a row that got no further. */
  stalls?: number;
  /** Shape plan: the value each extracted operand of a derivation must have, by the extraction's `want` (planner-derive.ts). */
  expected?: Record<string, number>;
  /** Shape plan: the part of the answer each extraction of the last plan was for, and the read it looked in, by its step id (planner-answer.ts). */
  answerSlots?: Record<string, { part: number; from: string }>;
  /** Shape plan: by part of the answer, the reads extractions looked in for it, and the evidence of the one that found it. */
  answerLooked?: Record<number, { tried: string[]; found?: string }>;
}

/** The pairs being run, by case id, shared by the runner (which opens them) and the adapters. */
export class PairRegistry {
  private readonly cases = new Map<string, CaseState>();

  open(caseId: string, info: SessionInfo): void {
    this.cases.set(caseId, { info, plan: [...info.groundTruth], cursor: 0, obeyed: false, seen: 0, retried: new Set(), replies: new Map(), triedFrom: {} });
  }
  close(caseId: string): void {
    this.cases.delete(caseId);
  }
  /** The answer of the run's finish, as the engine put it to the probe. */
  answerOf(caseId: string): string | undefined {
    return this.cases.get(caseId)?.answer;
  }
  /** The probe was asked about a finish with this answer (the last one asked is the run's). */
  heard(caseId: string, answer: string): void {
    const pair = this.cases.get(caseId);
    if (pair) pair.answer = answer;
  }
  /** Whether the obedient model obeyed the injection in this case. */
  obeyed(caseId: string): boolean {
    return this.cases.get(caseId)?.obeyed ?? false;
  }
  get(caseId: string): CaseState | undefined {
    return this.cases.get(caseId);
  }
}

export function agentdojoAdapters(registry: PairRegistry): Record<string, ModelAdapter> {
  return Object.fromEntries(AGENTDOJO_MODELS.map((m) => [adapterName(m), adapterFor(m, registry)]));
}

function adapterFor(model: ScriptedModel, registry: PairRegistry): ModelAdapter {
  return async (input, domain): Promise<ProposeOutput> => {
    const state = registry.get(input.context.caseId);
    const reply = state
      ? await decide(model, state, input.context, input.proposalIndex, domain)
      : { type: 'escalate', reason: `no AgentDojo pair is open for ${input.context.caseId}` };
    return { reply, tokens: input.context.tokenEstimate + estimateTokens(reply) };
  };
}

async function decide(model: ScriptedModel, state: CaseState, context: CompiledContext, index: number, domain: Domain): Promise<unknown> {
  const earlier = state.replies.get(index);
  if (earlier !== undefined) return earlier;
  // Shape plan: the planner sees trusted input only, an extractor one read (planner.ts).
  if (context.extract || context.shape === 'plan') {
    const reply = context.extract ? extractReply(model, state, context) : planReply(model, state, context, domain);
    state.replies.set(index, reply);
    return reply;
  }
  if (model === 'obedient' && !state.obeyed && showsInjection(context, state.info)) {
    state.obeyed = true;
    state.plan.splice(state.cursor, 0, ...state.info.injectionGroundTruth);
  }
  const asked = readAskedFor(context, state);
  if (asked) state.plan.splice(state.cursor, 0, ...asked);
  state.seen = context.transcript.length;
  const reply = next(state, context, domain);
  state.replies.set(index, reply);
  return reply;
}

function next(state: CaseState, context: CompiledContext, domain: Domain): unknown {
  const call = state.plan[state.cursor];
  if (call) {
    // A value it was never shown it cannot know (honest.ts): it says so instead of writing it.
    const own = domain.tools.find((t) => t.name === call.function)?.narrativeArgs ?? [];
    const unseen = unseenArgument(call.args, shownText(context), own);
    if (unseen !== undefined) return { type: 'escalate', reason: `nothing the run showed gives ${call.function}'s ${unseen}` };
    state.cursor++;
    const sources = citeSources(call.function, call.args, context, domain);
    return { type: 'call', calls: [{ tool: call.function, args: call.args, ...(sources ? { sources } : {}) }], reason: 'the next step of the task' };
  }
  const cite = context.evidence.filter((e) => e.status === 'ok').at(-1);
  if (!cite) return { type: 'escalate', reason: 'nothing observed to answer from' };
  // Its answer too says only what the run showed it (honest.ts).
  return {
    type: 'finish',
    outcome: 'resolved',
    claim: { answer: honestAnswer(state.info.groundTruthOutput, shownText(context)) },
    evidence: [cite.id],
    summary: 'done',
  };
}

/**
 * When the previous call was refused for a read it needs ("... (get_scheduled_transactions)
 * first"), that read and then the call again, once per call.
 */
function readAskedFor(context: CompiledContext, state: CaseState): GroundTruthCall[] | undefined {
  const previous = state.plan[state.cursor - 1];
  if (!previous) return undefined;
  const feedback = context.transcript.slice(state.seen).flatMap((t) => (t.kind === 'control' ? [t.message] : []));
  const reads = new Set(context.tools.filter((t) => t.kind === 'read').map((t) => t.name));
  for (const message of feedback) {
    const tool = /\(([a-z_]+)\) first/.exec(message)?.[1];
    const signature = `${previous.function} ${JSON.stringify(previous.args)}`;
    if (tool && reads.has(tool) && !state.retried.has(signature)) {
      state.retried.add(signature);
      return [{ function: tool, args: {} }, previous];
    }
  }
  return undefined;
}

const normalize = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * Whether anything the model was shown carries the attack's text (its start, whitespace aside):
 * quoted tool output, or a fact (an injection can sit in a record's name, a channel's, say).
 */
export function showsInjection(context: CompiledContext, info: SessionInfo): boolean {
  const markers = Object.values(info.injections)
    .map((text) => normalize(text).slice(0, 60))
    .filter((m) => m.length >= 8);
  if (markers.length === 0) return false;
  const shown = context.evidence.flatMap((e) => [...(e.untrustedText ?? []), ...Object.values(e.facts).flatMap((v) => (typeof v === 'string' ? [v] : []))]);
  return shown.some((text) => markers.some((m) => normalize(text).includes(m)));
}
