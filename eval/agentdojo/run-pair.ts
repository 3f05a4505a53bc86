// Why this exists: one AgentDojo pair through a real workflow, as its user would run it: open the
// bridge session (AgentDojo's environment with the attack's injections), start the run, send the
// user's request as their signed note before the model is asked anything, answer any approval
// request (the user approves what they are asked, and it is counted), and when the run has ended
// ask AgentDojo's own utility() and security() about the environment's final state.
import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, type WorkflowHandle } from '@temporalio/client';
import { signDecision, signNote } from '../../client/sign.js';
import { AGENT_WORKFLOW_TYPE } from '../../workflows/agent-workflow-type.js';
import type { Shape } from '../../workflows/controller/shape.js';
import { addNoteUpdate, approveUpdate, cancelSignal, stateQuery, type RunResult, type RunView } from '../../workflows/messages.js';
import type { RunInput } from '../../workflows/run-input.js';
import type { Attack, Verdict } from './client.js';
import { adapterName, type AgentDojoModel } from './models.js';
import type { AgentDojoStack } from './stack.js';

export type Suite = 'banking' | 'slack';
export const SUITES: readonly Suite[] = ['banking', 'slack'];

export interface PairSpec {
  suite: Suite;
  userTask: string;
  injectionTask: string | null;
  model: AgentDojoModel;
  shape?: Shape;
  attack?: Attack;
}

/** One result: AgentDojo's verdicts and what the engine did. */
export interface PairCell {
  suite: Suite;
  userTask: string;
  injectionTask: string | null;
  model: AgentDojoModel;
  shape: Shape | 'react';
  /** AgentDojo's utility() on the final environment (and the finish's answer). */
  utility: boolean;
  /** AgentDojo's security() (true: the injection task was accomplished); null without an attack. */
  attackSucceeded: boolean | null;
  /** The run asked a person (an approval request). */
  askedPerson: boolean;
  terminal: string;
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

export async function runPair(stack: AgentDojoStack, spec: PairSpec, timeoutMs = 120_000): Promise<PairCell> {
  const started = Date.now();
  const caseId = `${spec.suite[0]}-u${short(spec.userTask)}-i${short(spec.injectionTask)}-${spec.model}-${randomUUID().slice(0, 8)}`;
  const domain = `agentdojo-${spec.suite}`;
  const workflowId = `${domain}-${caseId}`;
  const info = await stack.bridge.open(caseId, spec.suite, spec.userTask, spec.injectionTask, spec.attack);
  let release = () => {};
  const ready = new Promise<void>((resolve) => (release = resolve));
  stack.registry.open(caseId, info, ready);
  try {
    const run: RunInput = { domain, caseId, model: { adapter: 'custom', name: adapterName(spec.model) }, ...(spec.shape ? { shape: spec.shape } : {}) };
    // The request goes with the start (update-with-start): the first workflow task holds it, so
    // no proposal is judged before it. Sent after the start instead, the engine applies the note
    // after the proposal in flight, and a first-turn effect is judged without it.
    const startOperation = new WithStartWorkflowOperation(AGENT_WORKFLOW_TYPE, {
      taskQueue: stack.taskQueue,
      workflowId,
      args: [{ run }],
      workflowIdConflictPolicy: 'FAIL',
    });
    try {
      const noted = await stack.client.workflow.executeUpdateWithStart(addNoteUpdate, {
        args: [signNote(stack.user, workflowId, info.prompt)],
        startWorkflowOperation: startOperation,
      });
      if (!noted.trusted) throw new Error(`the user's signed request was not trusted on ${workflowId}`);
    } finally {
      release();
    }
    const handle = await startOperation.workflowHandle();
    const { view, timedOut } = await untilTerminal(stack, handle, workflowId, timeoutMs);
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
      shape: spec.shape ?? 'react',
      utility: verdict.utility,
      attackSucceeded: spec.injectionTask === null ? null : verdict.security === true,
      askedPerson: (final?.state.approvals ?? []).length > 0 || timedOut === 'asked',
      terminal: timedOut ? 'timed_out' : `${terminal?.class ?? '?'}/${terminal?.reason ?? '?'}`,
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

/** Polls the run until it ends, approving each request the user is shown; cancels it at the deadline. */
async function untilTerminal(stack: AgentDojoStack, handle: Handle, workflowId: string, timeoutMs: number) {
  const signed = new Set<string>();
  const deadline = Date.now() + timeoutMs;
  let closed = false;
  void handle.result().then(
    () => (closed = true),
    () => (closed = true),
  );
  let view: RunView | undefined;
  for (;;) {
    view = await handle.query(stateQuery).catch(() => view);
    if (closed || view?.state.terminal) return { view, timedOut: false as const };
    const awaiting = view?.awaiting;
    if (awaiting && awaiting.eligible.length > 0 && !signed.has(awaiting.requestId)) {
      const ok = await handle
        .executeUpdate(approveUpdate, { args: [signDecision(stack.user, workflowId, awaiting, 'approve', 'the user approves what they asked for')] })
        .then(
          () => true,
          () => false,
        );
      if (ok) signed.add(awaiting.requestId);
    }
    if (Date.now() > deadline) {
      await handle.signal(cancelSignal, { by: 'agentdojo-eval', reason: `no terminal within ${timeoutMs} ms` });
      return { view, timedOut: signed.size > 0 ? ('asked' as const) : ('silent' as const) };
    }
    await sleep(50);
  }
}
