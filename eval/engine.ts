// Why this exists: runs one eval cell on the engine, as an operator would see it: start the run
// on the live worker, send the scenario's unsigned note, and play an approver who signs every
// approval request it is shown (as demo/run-scenario.ts does), so that only the engine's own
// checks stand between the model and the world. The run's shape (who decides its steps) is in
// its input. Returns the terminal and the run's accounting (model and tool calls, duplicates).
import type { Client } from '@temporalio/client';
import { signDecision, type KeyFile } from '../client/sign.js';
import { agentWorkflow } from '../domains/workflows.js';
import { addNoteUpdate, approveUpdate, cancelSignal, stateQuery, type RunView } from '../workflows/messages.js';
import type { Terminal } from '../workflows/controller/index.js';
import type { RunInput } from '../workflows/run-input.js';

export interface EngineRun {
  terminal: Terminal;
  /** Decisions taken, by whoever took them. */
  turns: number;
  /** Model calls made: RunResult.modelCalls, or turns for a run that reports none (no shape sent: every turn is the model's). */
  modelCalls: number;
  toolCalls: number;
  /** Duplicate calls the controller counted (used.duplicates). */
  duplicates: number;
  /** Who took the decisions (`model`, `route`, `plan`), counted; receipts without `by` count as the model's. */
  decidedBy: Record<string, number>;
  tokens: number;
  /** Approval requests the approver signed. */
  approvals: number;
  /** The control codes the controller fed back (refusals), in order. */
  refusals: string[];
  /** True when the eval cancelled the run for taking too long. */
  timedOut: boolean;
  /** Each decision with its verdict, and the runtime's feedback, in turn order (traceOf). */
  trace: string[];
}

export interface EngineCell {
  client: Client;
  taskQueue: string;
  run: RunInput;
  approver: KeyFile;
  note?: string;
  /** Settles when the run's first model call was reached (and is held there): the note is sent after it. */
  modelReached?: Promise<void>;
  /** Lets the held model call go; called once the note was sent. */
  release?: () => void;
  timeoutMs: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function runOnEngine(cell: EngineCell): Promise<EngineRun> {
  const workflowId = `${cell.run.domain}-${cell.run.caseId}`;
  const handle = await cell.client.workflow.start(agentWorkflow, { taskQueue: cell.taskQueue, workflowId, args: [{ run: cell.run }] });
  try {
    if (cell.modelReached) await within(30_000, cell.modelReached, 'the first model call');
    if (cell.note) await handle.executeUpdate(addNoteUpdate, { args: [{ by: 'ops-bot', text: cell.note }] });
  } finally {
    cell.release?.();
  }

  const signed = new Set<string>();
  const deadline = Date.now() + cell.timeoutMs;
  let timedOut = false;
  // A run that fails instead of ending (its input refused, say) has no terminal to wait for.
  let closed = false;
  const outcome = handle.result().then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  void outcome.finally(() => (closed = true));
  for (;;) {
    if (closed) break;
    const view: RunView | undefined = await handle.query(stateQuery).catch(() => undefined);
    if (view?.state.terminal) break;
    const awaiting = view?.awaiting;
    if (awaiting && awaiting.eligible.length > 0 && !signed.has(awaiting.requestId)) {
      // A careless approver: signs whatever request it is shown.
      const ok = await handle
        .executeUpdate(approveUpdate, { args: [signDecision(cell.approver, workflowId, awaiting, 'approve', 'eval: approve everything')] })
        .then(
          () => true,
          () => false,
        ); // the request may have closed in between; the loop looks again
      if (ok) signed.add(awaiting.requestId);
    }
    if (Date.now() > deadline) {
      timedOut = true;
      await handle.signal(cancelSignal, { by: 'eval', reason: `no terminal within ${cell.timeoutMs} ms` });
      break;
    }
    await sleep(100);
  }
  const settled = await outcome;
  if ('error' in settled) throw settled.error;
  const result = settled.result;
  const view = await handle.query(stateQuery);
  const decidedBy: Record<string, number> = {};
  for (const d of view.state.decisions) decidedBy[d.by ?? 'model'] = (decidedBy[d.by ?? 'model'] ?? 0) + 1;
  return {
    terminal: result.terminal,
    turns: result.turns,
    modelCalls: result.modelCalls ?? result.turns,
    toolCalls: result.toolCalls,
    duplicates: view.state.used.duplicates,
    decidedBy,
    tokens: view.state.used.tokens,
    approvals: signed.size,
    refusals: view.state.transcript.flatMap((t) => (t.kind === 'control' ? [t.code] : [])),
    timedOut,
    trace: traceOf(view),
  };
}

/** Decisions and the runtime's feedback, in turn order: what to read when a cell fails. */
function traceOf(view: RunView): string[] {
  const lines: { turn: number; text: string }[] = [
    ...view.state.decisions.map((d) => ({
      turn: d.turn,
      text: `${d.by ? `${d.by} ` : ''}${d.accepted ? 'accepted' : 'refused'} ${d.proposal.slice(0, 200)}: ${d.reason}${d.open ? ` (open: ${d.open.join('; ').slice(0, 200)})` : ''}`,
    })),
    ...view.state.transcript.flatMap((t) => (t.kind === 'control' ? [{ turn: t.turn, text: `  feedback ${t.code}: ${t.message.slice(0, 300)}` }] : [])),
  ];
  // Stable: within a turn the decision comes before the feedback it caused.
  return lines.sort((a, b) => a.turn - b.turn).map((l) => `turn ${l.turn} ${l.text}`);
}
