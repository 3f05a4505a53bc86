// The model-independent checks: the domain's live success probe, and the readback that tells,
// by idempotency key, whether an effect whose outcome is unknown actually happened.
import { ApplicationFailure } from '@temporalio/activity';
import type { ProbeVerdict, ReadbackResult } from '../workflows/protocol.js';
import type { ApproverDirectory } from '../workflows/trust/directory.js';
import { withHeartbeat } from './heartbeat.js';
import type { AnyImplementation, Readback } from './implement.js';

export interface ProbeDeps {
  implementations: Map<string, AnyImplementation>;
  deps: unknown;
  toolTimeoutMs: number;
  /** How many times a readback asks before it admits it cannot decide. */
  readbackAttempts: number;
  /** Who may approve what: the worker's configuration, never a run's input. */
  approvers: ApproverDirectory;
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
      try {
        const verdict = await withHeartbeat(() =>
          impl.probe(claim, { caseId, deps: deps.deps, timeoutMs: deps.toolTimeoutMs, ...(soak ? { soak: { from: soak.from, to: soak.until } } : {}) }),
        );
        return { ...verdict, checkedAt: Date.now() };
      } catch (err) {
        // A probe that cannot read the world has not confirmed anything.
        return { holds: false, conflict: false, decided: false, detail: `probe could not read the world: ${message(err)}`, facts: {}, checkedAt: Date.now() };
      }
    },

    async readback({ domain, caseId, tool, key, callId, fenceBefore }: ReadbackInput): Promise<ReadbackResult> {
      const readbacks = deps.implementations.get(domain)?.readbacks as Record<string, ReadbackFn> | undefined;
      const read = readbacks && Object.hasOwn(readbacks, tool) ? readbacks[tool] : undefined;
      if (!read) throw ApplicationFailure.nonRetryable(`no readback ${tool} in ${domain}`, 'UnknownReadback');
      let lastError = '';
      for (let attempt = 1; attempt <= deps.readbackAttempts; attempt++) {
        try {
          const found = await withHeartbeat(() =>
            read(key, { caseId, deps: deps.deps, timeoutMs: deps.toolTimeoutMs, ...(fenceBefore !== undefined ? { fenceBefore } : {}) }),
          );
          if (found.applied) return { callId, outcome: 'applied', output: found.output, detail: `found by key ${key}`, attempts: attempt };
          return found.fenced === true
            ? { callId, outcome: 'not_applied', detail: `no effect stored under key ${key}; the key is fenced`, attempts: attempt, fenced: true }
            : { callId, outcome: 'not_applied', detail: `no effect stored under key ${key}`, attempts: attempt };
        } catch (err) {
          lastError = message(err);
          await new Promise((r) => setTimeout(r, 200 * attempt));
        }
      }
      return { callId, outcome: 'undecided', detail: `readback failed ${deps.readbackAttempts} times: ${lastError}`, attempts: deps.readbackAttempts };
    },
  };
}

type ReadbackFn = (key: string, ctx: Parameters<AnyImplementation['probe']>[1]) => Promise<Readback>;

function message(err: unknown): string {
  return err instanceof Error ? err.message.slice(0, 200) : String(err);
}
