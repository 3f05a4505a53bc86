// A hostile MCP server must not wedge or exhaust the worker: a tools/list that never ends (a fresh
// cursor on every page, new tool names on every page, a cursor handed out again) is cut off at
// the source's bounds with a ToolUnavailable naming the server and the bound; a readback or probe
// whose server never answers ends at the worker's tool timeout, and when the activity is
// cancelled, with the server told either way; a readback's output is held to its effects' cap
// before it reaches history. The readback and probe run as activities in a real activity context,
// through the example domain's own MCP bindings. What the server served and heard is read from
// its own file. The timeouts here are short only where the server never answers at all, so the
// outcome cannot depend on speed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { registry } from '../../activities/implement.js';
import { MCP_LISTING_LIMITS } from '../../activities/mcp/source.js';
import { probeActivities, type ReadbackInput } from '../../activities/probes.js';
import { restartService } from '../../domains/mcp-incidents/domain.js';
import { mcpIncidentsImplementation } from '../../domains/mcp-incidents/worker-implementation.js';
import { ToolUnavailable } from '../../worker/public.js';
import { ApproverDirectory } from '../../workflows/trust/directory.js';
import type { HostileMode, HostileRecord } from '../fixtures/mcp-hostile-server.js';
import { waitUntil } from '../support/wait.js';
import { fixtureServerSource, thrown } from './stack.js';

const HOSTILE_SERVER = fileURLToPath(new URL('../fixtures/mcp-hostile-server.ts', import.meta.url));

/** Runs the activity in a real activity context (it heartbeats and is cancellable, as on a worker). */
function inActivity<I, R>(activity: (input: I) => Promise<R>, input: I, env = new MockActivityEnvironment()): Promise<R> {
  return env.run(activity, input) as Promise<R>;
}

describe('a hostile MCP server', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  function hostile(mode: HostileMode) {
    const {
      dir,
      source,
      lines: served,
      close,
    } = fixtureServerSource<HostileRecord>(
      `hostile-${mode}`,
      HOSTILE_SERVER,
      (stateFile) => ({ MCP_HOSTILE_STATE: stateFile, MCP_HOSTILE_MODE: mode }),
      // A success path's patience: only the server's silence may end a call here.
      { connectTimeoutMs: 60_000, log: () => undefined },
    );
    cleanups.push(close);
    const pages = () => served().filter((r) => 'page' in r).length;
    /** The engine's readback and probe activities for the example domain bound to this server. */
    const activities = (toolTimeoutMs: number, readbackAttempts = 1) =>
      probeActivities({
        implementations: registry([mcpIncidentsImplementation(source)]),
        deps: undefined,
        toolTimeoutMs,
        readbackAttempts,
        approvers: ApproverDirectory.parse({ approvers: [] }),
        blobDir: join(dir, 'blobs'),
      });
    return { source, served, pages, activities, dir };
  }

  const readbackInput: ReadbackInput = { domain: 'mcp-incidents', caseId: 'INC-1', tool: 'effect_by_key', key: 'k-1', callId: 'c-1' };

  describe('whose tool listing does not end', () => {
    it('a fresh cursor on every page: the listing stops after the page bound, and so does the connection a call opens', async () => {
      const { source, pages } = hostile('endless-pages');
      const err = await thrown(source.listTools());
      expect(ToolUnavailable.isInstance(err)).toBe(true);
      expect(err.message).toContain(source.name);
      expect(err.message).toContain(`after ${MCP_LISTING_LIMITS.pages} pages`);
      // The server's own count: not one page past the bound.
      expect(pages()).toBe(MCP_LISTING_LIMITS.pages);
      expect(source.status()).toMatchObject({ connected: false, listings: 0 });
      // A tool call needs the listing, so it is refused the same way, not left waiting on it.
      const call = await thrown(source.call('metrics', { service: 'db' }, { timeoutMs: 60_000 }));
      expect(ToolUnavailable.isInstance(call)).toBe(true);
      expect(call.message).toContain(`after ${MCP_LISTING_LIMITS.pages} pages`);
    });

    it('new tool names on every page: the listing stops at the tool bound', async () => {
      const { source, pages } = hostile('fresh-tools');
      const err = await thrown(source.listTools());
      expect(ToolUnavailable.isInstance(err)).toBe(true);
      expect(err.message).toContain(source.name);
      expect(err.message).toContain(`more than ${MCP_LISTING_LIMITS.tools} tools`);
      // 100 new names a page: the page that brings the first name past the bound is the last read.
      expect(pages()).toBe(Math.floor(MCP_LISTING_LIMITS.tools / 100) + 1);
    });

    it('the same cursor again: the listing stops at the repeat', async () => {
      const { source, served } = hostile('same-cursor');
      const err = await thrown(source.listTools());
      expect(ToolUnavailable.isInstance(err)).toBe(true);
      expect(err.message).toContain(source.name);
      expect(err.message).toMatch(/cursor "again" a second time/);
      expect(served()).toEqual([{ page: 1 }, { page: 2, cursor: 'again' }]);
    });
  });

  describe('that never answers a call', () => {
    it("the readback and the probe end within their activity's own time, and the server hears the deadline", async () => {
      const { source, served, activities } = hostile('silent');
      // Connected and listed first, so every call below reaches the server whatever the speed.
      await source.listTools();
      const { readback, verify } = activities(500, 2);

      // The activity's start-to-close time (probeOptions; here 1 s), shared by the readback's two reads.
      const result = await inActivity(readback, readbackInput, new MockActivityEnvironment({ startToCloseTimeoutMs: 1_000 }));
      expect(result).toMatchObject({ callId: 'c-1', outcome: 'undecided', attempts: 2 });
      expect(result.detail).toMatch(/readback failed 2 times: no answer within 500 ms/);

      const verdict = await inActivity(
        verify,
        { domain: 'mcp-incidents', caseId: 'INC-1', claim: {} },
        new MockActivityEnvironment({ startToCloseTimeoutMs: 500 }),
      );
      expect(verdict).toMatchObject({ holds: false, decided: false });
      expect(verdict.detail).toMatch(/no answer within 500 ms/);

      // Each request the engine gave up on was cancelled at the server, with the deadline as the reason.
      await waitUntil(() => {
        const records = served();
        const calls = records.filter((r) => 'called' in r).length;
        const cancels = records.filter((r) => 'cancelled' in r);
        return calls > 0 && cancels.length === calls && cancels;
      }, 'the server to hear every call cancelled').then((cancels) => {
        expect(cancels.filter((c) => 'cancelled' in c && c.cancelled === 'effect_by_key')).toHaveLength(2);
        expect(cancels.some((c) => 'cancelled' in c && c.cancelled === 'metrics')).toBe(true);
        for (const c of cancels) expect('reason' in c && c.reason).toMatch(/no answer within 500 ms/);
      });
    });

    it('a cancelled readback stops waiting and cancels its request, long before its timeout', async () => {
      const { source, served, activities } = hostile('silent');
      await source.listTools();
      // A minute: only the cancellation can end this readback while the test runs.
      const { readback } = activities(60_000);
      const env = new MockActivityEnvironment();
      const running = inActivity(readback, readbackInput, env);
      await waitUntil(() => served().some((r) => 'called' in r && r.called === 'effect_by_key'), 'the readback to reach the server');
      env.cancel();
      const err = await thrown(running);
      expect(err).toBeInstanceOf(CancelledFailure);
      await waitUntil(() => served().some((r) => 'cancelled' in r && r.cancelled === 'effect_by_key'), 'the server to hear the readback cancelled');
    });
  });

  it('a readback whose output is far over the cap goes into history cut to its effect contract cap, the full output kept aside', async () => {
    const { source, activities, dir } = hostile('huge-readback');
    const { readback } = activities(60_000);
    const result = await inActivity(readback, readbackInput);
    expect(result.outcome).toBe('applied');
    const bytes = Buffer.byteLength(JSON.stringify(result.output));
    expect(bytes).toBeLessThanOrEqual(restartService.maxObservationBytes);
    expect(result.output).toMatchObject({ service: 'db' });
    const ref = /in full as sha256:([0-9a-f]+)/.exec(result.detail)?.[1];
    expect(ref, result.detail).toBeDefined();
    const kept = JSON.parse(readFileSync(join(dir, 'blobs', `${ref}.json`), 'utf8')) as { log: string };
    expect(kept.log).toHaveLength(200_000);
    expect(source.status().calls).toBe(1);
  });
});
