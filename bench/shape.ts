// A synthetic run driven through the pure controller, with no server: the same loop as
// workflows/agent.ts, but each command is answered directly by the synthetic domain's code
// (rules policy, no-op tools, probe). It gives two things:
//   - the context each strategy compiles at a given turn (section "context tokens"), and
//   - the exact payload sizes of every activity call of a run, turn by turn, which the bare
//     baseline replays so that both workflows move the same bytes through Temporal.
import { domainDefaults, type ContextStrategy } from '../workflows/contract.js';
import { synthetic } from '../domains/synthetic/domain.js';
import { syntheticImplementation } from '../domains/synthetic/tools.js';
import type { ToolContext } from '../activities/implement.js';
import { estimateTokens, type CompiledContext, type RunEvent, initialState, next, type Step, type RunState } from '../workflows/controller/index.js';
import type { ToolResult } from '../workflows/protocol.js';
import type { BareTurn } from './bare-workflows.js';

/** Sizes are JSON characters of what the workflow hands the activity and gets back. */
export interface CallShape {
  inBytes: number;
  outBytes: number;
}

export interface TurnShape {
  turn: number;
  /** What the turn did after the model call. */
  kind: 'read' | 'parallel' | 'effect' | 'finish' | 'none';
  model: CallShape;
  contextTokens: number;
  /** The tool calls (or the final probe) that followed the model call. */
  tools: CallShape[];
}

export interface SimulationOptions {
  turns: number;
  strategy?: ContextStrategy;
  window?: number;
  runId?: string;
  /** The model: the synthetic rules policy unless given (e.g. a scripted list of replies). */
  model?: { adapter: 'rules' } | { adapter: 'scripted'; replies: unknown[] };
  /** Sees every state the controller hands out (the retention tests watch its size). */
  onState?: (state: RunState) => void;
}

const bytes = (value: unknown): number => JSON.stringify(value).length;

/** The bare workflow's input for the same run: the same calls with the same payload sizes. */
export function bareTurnsOf(run: TurnShape[]): BareTurn[] {
  return run.map((t) => ({ promptBytes: t.model.inBytes, replyBytes: t.model.outBytes, tools: t.tools }));
}

/** Runs the synthetic agent for `turns` turns (with rules, the last one finishes) and reports every turn. */
export async function simulateRun(options: SimulationOptions): Promise<TurnShape[]> {
  const runId = options.runId ?? `synthetic-sim-${options.strategy ?? 'default'}-${options.turns}`;
  const caseId = runId.slice(0, 80);
  // A fake clock: 5 ms per step keeps timestamps realistic without reading the real one.
  let now = Date.UTC(2025, 0, 1);
  const tick = (): number => (now += 5);
  const model = options.model ?? { adapter: 'rules' as const };
  const reply = (context: CompiledContext, index: number): unknown =>
    model.adapter === 'rules' ? syntheticImplementation.policy?.(context) : model.replies[index];
  const ctx = (idempotencyKey?: string): ToolContext => ({
    caseId,
    // The synthetic tools need nothing from the worker.
    deps: undefined,
    timeoutMs: 5_000,
    ...(idempotencyKey ? { idempotencyKey } : {}),
  });

  const state = initialState({
    runId,
    domain: synthetic,
    caseId,
    budgets: { ...domainDefaults(synthetic).budgets, turns: options.turns },
    context: { strategy: options.strategy ?? domainDefaults(synthetic).context, window: options.window ?? domainDefaults(synthetic).window },
    chain: 'bench-chain',
    now,
  });
  let step: Step = next(state, { type: 'started', now: tick() }, synthetic);
  const turns: TurnShape[] = [];
  let current: TurnShape | undefined;

  while (step.command.type !== 'stop') {
    const command = step.command;
    let event: RunEvent;
    switch (command.type) {
      case 'propose': {
        const input = { domain: synthetic.name, caseId, model, context: command.context, proposalIndex: command.proposalIndex };
        const answer = reply(command.context, command.proposalIndex);
        const output = { reply: answer, tokens: command.context.tokenEstimate + estimateTokens(answer ?? null) };
        current = {
          turn: step.state.turn,
          kind: 'none',
          model: { inBytes: bytes(input), outBytes: bytes(output) },
          contextTokens: command.context.tokenEstimate,
          tools: [],
        };
        turns.push(current);
        event = { type: 'proposed', now: tick(), reply: output.reply, tokens: output.tokens, contextTokens: command.context.tokenEstimate };
        break;
      }
      case 'invoke': {
        const results: ToolResult[] = [];
        for (const call of command.calls) {
          const tools = syntheticImplementation.tools as Record<string, (args: never, ctx: ToolContext) => Promise<unknown>>;
          const run = Object.hasOwn(tools, call.tool) ? tools[call.tool] : undefined;
          if (!run) throw new Error(`simulation: no synthetic tool ${call.tool}`);
          const startedAt = tick();
          const output = await run(call.args as never, ctx(call.idempotencyKey));
          const result: ToolResult = { status: 'ok', callId: call.callId, output, attempt: 1, startedAt, finishedAt: tick() };
          results.push(result);
          current?.tools.push({ inBytes: bytes({ domain: synthetic.name, caseId, call }), outBytes: bytes(result) });
        }
        if (current) current.kind = command.calls.some((c) => c.kind === 'effect') ? 'effect' : command.calls.length > 1 ? 'parallel' : 'read';
        event = { type: 'observed', now: tick(), results };
        break;
      }
      case 'verify': {
        const verdict = { ...(await syntheticImplementation.probe(command.claim as { done: true }, ctx())), checkedAt: tick() };
        if (current) {
          current.kind = 'finish';
          current.tools.push({ inBytes: bytes({ domain: synthetic.name, caseId, claim: command.claim }), outBytes: bytes(verdict) });
        }
        event = { type: 'verified', now: tick(), verdict };
        break;
      }
      default:
        // The synthetic rules run never waits for approval and never has an effect in doubt.
        throw new Error(`simulation: unexpected command ${command.type}`);
    }
    step = next(step.state, event, synthetic);
    options.onState?.(step.state);
  }
  // Rules runs finish on their last turn; scripted ones run out of turns after the last reply.
  const expected = model.adapter === 'rules' ? 'resolved' : 'budget_exhausted';
  if (step.command.terminal.class !== expected) {
    throw new Error(`simulation ended ${step.command.terminal.class}/${step.command.terminal.reason}, expected ${expected}`);
  }
  return turns;
}
