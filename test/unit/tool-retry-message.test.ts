// What a retried tool call's failure says. Temporal stores a failure's message in clear, where no
// payload codec sees it (docs/encryption.md), so an attempt that fails and will be tried again
// says only what kind of failure it was; the system's own words, which can hold what the team
// encrypts, reach the run only in the last attempt's result, a payload. In a real activity
// context (its attempt number), on the tool activity the worker runs.
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { implement } from '../../activities/implement.js';
import { ToolUnavailable } from '../../activities/tool-errors.js';
import { toolActivities } from '../../activities/tools.js';
import { registry } from '../../activities/implement.js';
import { TOOL_ATTEMPTS } from '../../workflows/policy.js';
import { faulty } from '../fixtures/faulty-domain.js';

const SECRET = 'IBAN NL91ABNA0417164300 of customer Vandermeer';
const implementation = implement(faulty).with({
  tools: {
    peek: async () => {
      throw new ToolUnavailable(`the store timed out looking up ${SECRET}`);
    },
    poke: async () => ({ id: 'x' }),
  },
  readbacks: { poke_by_key: async () => ({ applied: false }) },
  probe: async () => ({ holds: false, conflict: false, decided: true, detail: '', facts: {} }),
});
const { invokeTool } = toolActivities({ implementations: registry([implementation]), deps: undefined, blobDir: '/tmp', toolTimeoutMs: 1_000 });
const input = { domain: 'faulty', caseId: 'T-1', call: { callId: 'c1', turn: 1, tool: 'peek', args: { id: 'a' }, kind: 'read' as const, idempotent: true } };

describe('a tool call that fails and will be tried again', () => {
  it("fails saying only the kind of failure, never the system's words", async () => {
    const failed = await new MockActivityEnvironment({ attempt: 1 }).run(invokeTool, input).then(
      () => undefined,
      (err: unknown) => err as Error & { type?: string },
    );
    expect(failed?.type).toBe('ToolTransient');
    expect(failed?.message).toMatch(/^peek attempt 1: transient/);
    expect(failed?.message).not.toContain('Vandermeer');
    expect(failed?.message).not.toContain('NL91');
  });

  it("on its last attempt returns the system's words in its result", async () => {
    const result = await new MockActivityEnvironment({ attempt: TOOL_ATTEMPTS }).run(invokeTool, input);
    expect(result).toMatchObject({ status: 'error', errorClass: 'transient', message: expect.stringContaining(SECRET) });
  });
});
