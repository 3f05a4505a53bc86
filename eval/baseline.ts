// Why this exists: the comparison needs the agent people write with an SDK, run on the same
// model, the same tool implementations and the same world as the engine. It is the usual loop:
// ask the model, execute whatever tool calls it returns directly through the implementation,
// append the results to the transcript, stop when it says finish or escalate or after a step
// limit. No gate, no preconditions, no provenance, no approvals, no probe: "done" is the model
// saying finish. What it does show the model is what the engine shows it (facts and quoted free
// text, built from the same tool contracts), so the model's view is the same and only the
// guard rails differ.
import { randomUUID } from 'node:crypto';
import type { AnyImplementation } from '../activities/implement.js';
import type { ModelAdapter, ProposeInput } from '../activities/model/index.js';
import type { WorldClient } from '../domains/world/client.js';
import type { AnyTool } from '../workflows/tool-contract.js';
import {
  estimateTokens,
  type CompiledContext,
  type ContextEvidence,
  parseDecision,
  summarizeDecision,
  type TranscriptEntry,
} from '../workflows/controller/index.js';
import type { ModelConfig } from '../workflows/run-input.js';

export type BaselineEnd = 'finish' | 'escalate' | 'step_limit' | 'model_error';

export interface BaselineRun {
  end: BaselineEnd;
  /** The escalation reason, the model error, or the claim of a finish. */
  detail: string;
  claim?: unknown;
  /** Model calls made. */
  steps: number;
  tokens: number;
  /** Tool calls executed against the world (effects included). */
  toolCalls: number;
  /** Every tool call in order, as executed, with what came back. */
  log: { step: number; tool: string; args: unknown; ok: boolean; result: string }[];
}

export interface BaselineOptions {
  implementation: AnyImplementation;
  model: ModelAdapter;
  /** What the model config says (`custom` names the adapter; the OpenAI adapter reads a model name from it). */
  modelConfig: ModelConfig;
  world: WorldClient;
  caseId: string;
  /** Operator notes present from the start; the baseline has no way to tell signed from unsigned. */
  notes?: { by: string; text: string }[];
  stepLimit?: number;
  toolTimeoutMs?: number;
  /** Retries of a model call that threw (an endpoint's 429/5xx/timeout), before giving up. */
  modelRetries?: number;
}

export async function runBaseline(o: BaselineOptions): Promise<BaselineRun> {
  const { implementation, world, caseId } = o;
  const domain = implementation.domain;
  const stepLimit = o.stepLimit ?? 12;
  const toolTimeoutMs = o.toolTimeoutMs ?? 3_000;
  const contracts = new Map<string, AnyTool>(domain.tools.map((t: AnyTool) => [t.name, t]));
  const tools = implementation.tools as Record<string, ((args: unknown, ctx: unknown) => Promise<unknown>) | undefined>;
  const transcript: TranscriptEntry[] = [];
  const evidence: ContextEvidence[] = [];
  const notes = (o.notes ?? []).map((n) => ({ ...n, signed: false }));
  const log: BaselineRun['log'] = [];
  const startedAt = Date.now();
  let seq = 0;
  let tokens = 0;
  let toolCalls = 0;

  for (let step = 0; step < stepLimit; step++) {
    const turn = step + 1;
    const context: CompiledContext = {
      domain: domain.name,
      caseId,
      goal: domain.goal(caseId),
      strategy: 'full',
      // Nothing is enforced but the step limit; the numbers are only there for the model to read.
      runtime: {
        turn,
        left: { turns: stepLimit - step, toolCalls: 999, effects: 999, duplicates: 999, tokens: 1_000_000, msLeft: 600_000 - (Date.now() - startedAt) },
        deadlineAt: startedAt + 600_000,
      },
      tools: domain.tools.map((t: AnyTool) => ({ name: t.name, kind: t.kind, description: t.description })),
      transcript: [...transcript],
      evidence: [...evidence],
      pinned: [],
      notes,
      tokenEstimate: 0,
    };
    context.tokenEstimate = estimateTokens(context);

    const input: ProposeInput = { domain: domain.name, caseId, model: o.modelConfig, context, proposalIndex: step };
    let reply: unknown;
    try {
      const out = await withRetries(() => o.model(input, domain), o.modelRetries ?? 2);
      tokens += out.tokens;
      reply = out.reply;
    } catch (err) {
      return { end: 'model_error', detail: err instanceof Error ? err.message : String(err), steps: turn, tokens, toolCalls, log };
    }

    const parsed = parseDecision(reply);
    if (!parsed.ok) {
      // What an SDK loop does with a reply it cannot use: say so and ask again.
      transcript.push({ kind: 'control', turn, code: 'invalid_reply', message: parsed.problem });
      continue;
    }
    const decision = parsed.decision;
    if (decision.type === 'finish')
      return { end: 'finish', detail: JSON.stringify(decision.claim), claim: decision.claim, steps: turn, tokens, toolCalls, log };
    if (decision.type === 'escalate') return { end: 'escalate', detail: decision.reason, steps: turn, tokens, toolCalls, log };

    transcript.push({ kind: 'proposal', turn, summary: summarizeDecision(decision) });
    // Call ids first, then evidence ids, as the engine numbers them (scripts cite evidence ids).
    const calls = decision.calls.map((call) => ({ ...call, callId: `c${++seq}` }));
    for (const call of calls) {
      const evidenceId = `e${++seq}`;
      const contract = contracts.get(call.tool);
      const impl = tools[call.tool];
      const base = {
        id: evidenceId,
        callId: call.callId,
        args: call.args,
        tool: call.tool,
        source: contract?.source ?? 'unknown',
        authority: contract?.authority ?? 'untrusted',
        fresh: true,
        observedAt: Date.now(),
      };
      let observed: ContextEvidence;
      if (!contract || !impl) {
        observed = { ...base, status: 'error', facts: {}, error: `unknown tool ${call.tool}` };
      } else {
        // The SDK validates arguments against the tool's schema (and fills its defaults); that is all.
        const args = contract.input.safeParse(call.args);
        if (!args.success) {
          observed = {
            ...base,
            status: 'error',
            facts: {},
            error: `invalid arguments: ${args.error.issues
              .map((i: { message: string }) => i.message)
              .join('; ')
              .slice(0, 300)}`,
          };
        } else {
          toolCalls++;
          try {
            const output = await impl(args.data, { caseId, deps: { world }, timeoutMs: toolTimeoutMs, idempotencyKey: randomUUID() });
            observed = { ...base, status: 'ok', facts: safely(() => contract.facts(output), {}), ...textOf(safely(() => contract.freeText(output), [])) };
            log.push({ step: turn, tool: call.tool, args: args.data, ok: true, result: clip(JSON.stringify(output)) });
          } catch (err) {
            const message = err instanceof Error ? err.message : String(err);
            observed = { ...base, status: 'error', facts: {}, error: clip(message) };
            log.push({ step: turn, tool: call.tool, args: args.data, ok: false, result: clip(message) });
          }
        }
      }
      if (contract?.subject) {
        const subject = safely(() => contract.subject?.(call.args), undefined);
        if (typeof subject === 'string') observed.subject = subject;
      }
      evidence.push(observed);
      transcript.push({ kind: 'observation', turn, evidenceId });
    }
  }
  return { end: 'step_limit', detail: `no finish or escalation in ${stepLimit} steps`, steps: stepLimit, tokens, toolCalls, log };
}

function textOf(lines: string[]): Pick<ContextEvidence, 'untrustedText'> {
  return lines.length ? { untrustedText: lines.map((l) => l.slice(0, 1_000)) } : {};
}

function safely<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch {
    return fallback;
  }
}

function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

async function withRetries<T>(f: () => Promise<T>, retries: number): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await f();
    } catch (err) {
      if (attempt >= retries || isNonRetryable(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1_000 * 2 ** attempt));
    }
  }
}

/** A script running out, or a misconfigured model, will not get better by asking again. */
function isNonRetryable(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { nonRetryable?: unknown }).nonRetryable === true;
}
