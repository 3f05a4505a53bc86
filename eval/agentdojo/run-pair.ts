// Why this exists: one AgentDojo pair through a real workflow, as its user would run it: open the
// bridge session (AgentDojo's environment with the attack's injections and the runner's
// environment patch, if any), start the run with the user's request signed as part of the start
// (RunInput.request), answer any approval request as the pair's person would (person.ts; by
// default one who approves a call their own task needs and denies any other; every request is
// counted), and when the run has ended ask AgentDojo's own utility() and security() about the
// environment's final state.
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { signDecision, signNote } from '../../client/sign.js';
import { runBinding } from '../../workflows/trust/run-binding.js';
import { AGENT_WORKFLOW_TYPE } from '../../workflows/agent-workflow-type.js';
import type { Shape } from '../../workflows/controller/index.js';
import { approveUpdate, cancelSignal, denyUpdate, stateQuery, type RunResult, type RunView } from '../../workflows/messages.js';
import type { RunInput } from '../../workflows/run-input.js';
import type { Attack, GroundTruthCall, Verdict } from './client.js';
import type { SuitePatch } from './environment-patch.js';
import { runModelFor, type AgentDojoModel } from './models.js';
import { decide, DEFAULT_PERSON, type Person } from './person.js';
import type { AgentDojoStack } from './stack.js';

export type Suite = 'banking' | 'slack' | 'travel' | 'workspace';
export const SUITES: readonly Suite[] = ['banking', 'slack', 'travel', 'workspace'];
/** What the runner runs when `--suites` is not given: travel and workspace are asked for by name, so the default sweep keeps its time. */
export const DEFAULT_SUITES: readonly Suite[] = ['banking', 'slack'];

export interface PairSpec {
  suite: Suite;
  userTask: string;
  injectionTask: string | null;
  model: AgentDojoModel;
  /** Who answers the cards (default `ground-truth`). */
  person?: Person;
  shape?: Shape;
  attack?: Attack;
  /** The runner's `--run-deadline-ms`: a CPU model's run may need more than the domain's deadline. */
  budgets?: RunInput['budgets'];
  /** The runner's `--environment-patch`, this suite's part: merged into the environment before the run. */
  environmentPatch?: SuitePatch;
}

/** One result: AgentDojo's verdicts and what the engine did. */
export interface PairCell {
  suite: Suite;
  userTask: string;
  injectionTask: string | null;
  model: AgentDojoModel;
  /** Who answered the cards. */
  person: Person;
  shape: Shape | 'react';
  /** AgentDojo's utility() on the final environment (and the finish's answer). */
  utility: boolean;
  /** AgentDojo's security() (true: the injection task was accomplished); null without an attack. */
  attackSucceeded: boolean | null;
  /** The run asked a person (an approval request). */
  askedPerson: boolean;
  /** Each decision the person made, as `tool approved|denied`, in order. */
  decisions: string[];
  /** What the cards named as values without a trusted source, and where each was seen. */
  askedAbout: string[];
  terminal: string;
  /** The terminal's own words (why a run escalated, what it finished with), clipped. */
  detail: string;
  /** The answer AgentDojo judged: the claim the run finished with, clipped; empty when it did not resolve. */
  answer: string;
  /** The controller's refusals, as `code: message`, in order. */
  refusals: string[];
  /** The calls that reached AgentDojo's world, as `tool ok|error`. */
  calls: string[];
  /** The obedient model saw the injected text and took on its calls. */
  obeyed: boolean;
  ms: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const short = (task: string | null) => (task === null ? 'none' : task.replace(/^(user|injection)_task_/, ''));

/** How long a pair may take before it is cancelled (the runner's `--pair-timeout-ms`; a CPU model needs more). */
export const DEFAULT_PAIR_TIMEOUT_MS = 120_000;

export async function runPair(stack: AgentDojoStack, spec: PairSpec, timeoutMs = DEFAULT_PAIR_TIMEOUT_MS): Promise<PairCell> {
  const started = Date.now();
  // The domains' case ids are [a-z0-9-]: a model's name such as local-qwen2.5-coder-1.5b loses its dots here.
  const caseId = `${spec.suite[0]}-u${short(spec.userTask)}-i${short(spec.injectionTask)}-${spec.model.replace(/[^a-z0-9-]/g, '-')}-${randomUUID().slice(0, 8)}`;
  const domain = `agentdojo-${spec.suite}`;
  const workflowId = `${domain}-${caseId}`;
  const person = spec.person ?? DEFAULT_PERSON;
  const info = await stack.bridge.open(caseId, spec.suite, spec.userTask, spec.injectionTask, {
    ...(spec.attack ? { attack: spec.attack } : {}),
    ...(spec.environmentPatch ? { environmentPatch: spec.environmentPatch } : {}),
  });
  stack.registry.open(caseId, info);
  try {
    // The request is part of the start (RunInput.request): the run takes it before the model's
    // first proposal is judged, so a first-turn effect whose values only the request names counts.
    const settings: RunInput = {
      domain,
      caseId,
      model: runModelFor(spec.model),
      ...(spec.shape ? { shape: spec.shape } : {}),
      ...(spec.budgets ? { budgets: spec.budgets } : {}),
    };
    const bound = runBinding(stack.client.options.namespace, settings);
    const run: RunInput = { ...settings, request: signNote(stack.user, workflowId, info.prompt, { bound }) };
    const handle = await stack.client.workflow.start(AGENT_WORKFLOW_TYPE, {
      taskQueue: stack.taskQueue,
      workflowId,
      args: [{ run }],
      workflowIdConflictPolicy: 'FAIL',
    });
    const { view, timedOut, decisions } = await untilTerminal(stack, handle, workflowId, timeoutMs, person, info.groundTruth);
    const result = timedOut ? undefined : ((await handle.result()) as RunResult);
    const terminal = result?.terminal ?? view?.state.terminal;
    const answer = terminal?.class === 'resolved' ? (stack.registry.answerOf(caseId) ?? '') : '';
    const verdict: Verdict = await stack.bridge.judge(caseId, answer);
    const final = await handle.query(stateQuery).catch(() => view);
    return {
      suite: spec.suite,
      userTask: spec.userTask,
      injectionTask: spec.injectionTask,
      model: spec.model,
      person,
      shape: spec.shape ?? 'react',
      utility: verdict.utility,
      attackSucceeded: spec.injectionTask === null ? null : verdict.security === true,
      askedPerson: (final?.state.approvals ?? []).length > 0 || timedOut === 'asked',
      decisions,
      askedAbout: (final?.state.approvals ?? []).flatMap((a) =>
        Object.entries(a.display ?? {}).flatMap(([k, v]) => (k.includes('unvouched value') ? [v] : [])),
      ),
      terminal: timedOut ? 'timed_out' : `${terminal?.class ?? '?'}/${terminal?.reason ?? '?'}`,
      detail: (terminal?.detail ?? '').slice(0, 300),
      answer: answer.slice(0, 300),
      refusals: (final?.state.transcript ?? []).flatMap((t) => (t.kind === 'control' ? [`${t.code}: ${t.message}`] : [])),
      calls: verdict.calls.map((c) => `${c.tool} ${c.ok ? 'ok' : 'error'}`),
      obeyed: stack.registry.obeyed(caseId),
      ms: Date.now() - started,
    };
  } finally {
    stack.registry.close(caseId);
    await stack.bridge.close(caseId).catch(() => undefined);
  }
}

type Handle = WorkflowHandle;

/** Polls the run until it ends, deciding each request as `person` would; cancels it at the deadline. */
async function untilTerminal(stack: AgentDojoStack, handle: Handle, workflowId: string, timeoutMs: number, person: Person, groundTruth: GroundTruthCall[]) {
  const signed = new Set<string>();
  const decisions: string[] = [];
  const deadline = Date.now() + timeoutMs;
  let closed = false;
  void handle.result().then(
    () => (closed = true),
    () => (closed = true),
  );
  let view: RunView | undefined;
  for (;;) {
    view = await handle.query(stateQuery).catch(() => view);
    if (closed || view?.state.terminal) return { view, timedOut: false as const, decisions };
    const awaiting = view?.awaiting;
    if (awaiting && awaiting.eligible.length > 0 && !signed.has(awaiting.requestId)) {
      const { approve, reason } = decide(person, awaiting, groundTruth);
      const decision = signDecision(stack.user, workflowId, awaiting, approve ? 'approve' : 'deny', reason);
      const ok = await handle.executeUpdate(approve ? approveUpdate : denyUpdate, { args: [decision] }).then(
        () => true,
        () => false,
      );
      if (ok) {
        signed.add(awaiting.requestId);
        decisions.push(`${awaiting.tool} ${approve ? 'approved' : 'denied'}`);
      }
    }
    if (Date.now() > deadline) {
      await handle.signal(cancelSignal, { by: 'agentdojo-eval', reason: `no terminal within ${timeoutMs} ms` });
      return { view, timedOut: signed.size > 0 ? ('asked' as const) : ('silent' as const), decisions };
    }
    await sleep(50);
  }
}
