// The model-independent checks: the domain's live success probe, and the readback that tells,
// by idempotency key, whether an effect whose outcome is unknown actually happened. Both reach a
// system of record as a tool call does, so they get what a tool call gets: the request timeout
// enforced and the activity's cancellation handed on (activities/deadline.ts), and a readback's
// output held to its effects' cap before it goes into history (activities/shrink.ts).
import { ApplicationFailure, Context } from '@temporalio/activity';
import { DEFAULT_MAX_OBSERVATION_BYTES } from '../workflows/policy.js';
import type { ProbeVerdict, ReadbackResult } from '../workflows/protocol.js';
import type { ApproverDirectory } from '../workflows/trust/directory.js';
import { withDeadline } from './deadline.js';
import { withHeartbeat } from './heartbeat.js';
import type { AnyImplementation, Readback } from './implement.js';
import { shrinkToCap } from './shrink.js';

export interface ProbeDeps {
  implementations: Map<string, AnyImplementation>;
  deps: unknown;
  toolTimeoutMs: number;
  /** How many times a readback asks before it admits it cannot decide. */
  readbackAttempts: number;
  /** Who may approve what: the worker's configuration, never a run's input. */
  approvers: ApproverDirectory;
  /** Where a readback's full output goes when it exceeds the cap (as the tools' do). */
  blobDir: string;
}

export interface ReadbackInput {
  domain: string;
  caseId: string;
  tool: string;
  key: string;
  callId: string;
  /** Fence the key against requests sent before this time, where the system can (ToolContext.fenceBefore). */
  fenceBefore?: number;
}

export function probeActivities(deps: ProbeDeps) {
  return {
    /** The approver directory as this worker is configured now (keys may have been rotated). */
    async loadApprovers(): Promise<ApproverDirectory> {
      return deps.approvers;
    },

    async verify({
      domain,
      caseId,
      claim,
      soak,
    }: {
      domain: string;
      caseId: string;
      claim: unknown;
      soak?: { from: number; until: number };
    }): Promise<ProbeVerdict> {
      const impl = deps.implementations.get(domain);
      if (!impl) throw ApplicationFailure.nonRetryable(`no probe for ${domain}`, 'UnknownDomain');
      const cancelled = Context.current().cancellationSignal;
      try {
        const verdict = await withHeartbeat(() =>
          withDeadline(budgetMs(deps.toolTimeoutMs), cancelled, (signal) =>
            impl.probe(claim, {
              caseId,
              deps: deps.deps,
              timeoutMs: deps.toolTimeoutMs,
              signal,
              ...(soak ? { soak: { from: soak.from, to: soak.until } } : {}),
            }),
          ),
        );
        return { ...verdict, checkedAt: Date.now() };
      } catch (err) {
        // A cancelled probe was not asked to finish: no verdict, not even "could not tell".
        if (cancelled.aborted) throw err;
        // A probe that cannot read the world has not confirmed anything.
        return { holds: false, conflict: false, decided: false, detail: `probe could not read the world: ${message(err)}`, facts: {}, checkedAt: Date.now() };
      }
    },

    async readback({ domain, caseId, tool, key, callId, fenceBefore }: ReadbackInput): Promise<ReadbackResult> {
      const readbacks = deps.implementations.get(domain)?.readbacks as Record<string, ReadbackFn> | undefined;
      const read = readbacks && Object.hasOwn(readbacks, tool) ? readbacks[tool] : undefined;
      if (!read) throw ApplicationFailure.nonRetryable(`no readback ${tool} in ${domain}`, 'UnknownReadback');
      const context = Context.current();
      let lastError = '';
      for (let attempt = 1; attempt <= deps.readbackAttempts; attempt++) {
        try {
          const found = await withHeartbeat(() =>
            withDeadline(budgetMs(deps.toolTimeoutMs, deps.readbackAttempts), context.cancellationSignal, (signal) =>
              read(key, { caseId, deps: deps.deps, timeoutMs: deps.toolTimeoutMs, signal, ...(fenceBefore !== undefined ? { fenceBefore } : {}) }),
            ),
          );
          if (found.applied) {
            // The output is evidence like a tool's: the workflow records it, so it is held to the cap too.
            const shrunk = shrinkToCap(found.output, readbackCap(deps.implementations.get(domain), tool), deps.blobDir);
            const cut = shrunk.truncated ? `; its output cut from ${shrunk.truncated.originalBytes} bytes, in full as ${shrunk.truncated.ref}` : '';
            return {
              callId,
              outcome: 'applied',
              ...(shrunk.output !== undefined ? { output: shrunk.output } : {}),
              detail: `found by key ${key}${cut}`,
              attempts: attempt,
            };
          }
          return found.fenced === true
            ? { callId, outcome: 'not_applied', detail: `no effect stored under key ${key}; the key is fenced`, attempts: attempt, fenced: true }
            : { callId, outcome: 'not_applied', detail: `no effect stored under key ${key}`, attempts: attempt };
        } catch (err) {
          // Cancelled (the worker is stopping): asking again would only hold the slot longer.
          if (context.cancellationSignal.aborted) throw err;
          lastError = message(err);
          await context.sleep(200 * attempt);
        }
      }
      return { callId, outcome: 'undecided', detail: `readback failed ${deps.readbackAttempts} times: ${lastError}`, attempts: deps.readbackAttempts };
    },
  };
}

/**
 * How long a probe, or one of a readback's reads, may take: its activity's own start-to-close time
 * (probeOptions), shared among the reads, and never less than a tool call's. A probe may be
 * composite (a rollout waited for, then a query), so a tool call's timeout is no bound for it; the
 * bound is what frees the worker's slot when the system it asks never answers.
 */
function budgetMs(toolTimeoutMs: number, reads = 1): number {
  const total = Context.current().info.startToCloseTimeoutMs;
  return Number.isFinite(total) && total > 0 ? Math.max(toolTimeoutMs, Math.floor(total / reads)) : toolTimeoutMs;
}

type ReadbackFn = (key: string, ctx: Parameters<AnyImplementation['probe']>[1]) => Promise<Readback>;

/**
 * The largest cap among the effects this readback settles: the activity is not told which effect
 * it reads back for, and one output must fit whichever it is.
 */
function readbackCap(impl: AnyImplementation | undefined, readback: string): number {
  const caps = (impl?.domain.tools ?? [])
    .filter((t: { readback?: string }) => t.readback === readback)
    .map((t: { maxObservationBytes: number }) => t.maxObservationBytes);
  return caps.length ? Math.max(...caps) : DEFAULT_MAX_OBSERVATION_BYTES;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message.slice(0, 200) : String(err);
}
