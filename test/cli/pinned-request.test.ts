// A decision is signed over the call the approver read, not over whatever is pending under a
// request id when the command runs. Request ids are predictable (`<run>/approval/c<seq>`): a run
// terminated and started again under the same workflow id raises its request under the same id,
// with another digest. So status and watch print the id pinned to the call shown
// (`<request id>#<digest prefix>`), and approve, deny and amend given that id (or
// AgentClient's `digest` option) refuse, signing nothing, when the pending call's digest does not
// start with it. Checked on the real CLI and client against a real worker, and on the run's own
// state afterwards: still pending, no approval recorded, nothing sent to the world. A bare id
// still decides, as scripts use it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { RequestNotPendingError } from '../../client/agent-errors.js';
import { writeKeyFile } from '../../client/sign.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import type { AgentWorkflow } from '../../workflows/agent.js';
import { stateQuery } from '../../workflows/messages.js';
import type { RunInput } from '../../workflows/run-input.js';
import { reissueCalls, waitForRequest } from '../support/adversarial.js';
import { startRun, uniqueCase, useAgentHarness } from '../support/agent.js';
import { cliEnv, runCliHere } from '../support/cli.js';
import { keys } from '../support/keys.js';
import type { ScriptResult } from '../support/run-script.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-pinned-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const aliceKey = join(dir, 'alice.json');
writeKeyFile(aliceKey, keys.alice);

/** The id status prints for a request with this digest. */
const pinned = (requestId: string, digest: string) => `${requestId}#${digest.slice(0, 16)}`;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe.concurrent('a decision pinned to the call shown', () => {
  const h = useAgentHarness();
  const cli = (...args: string[]): Promise<ScriptResult> => runCliHere(args, cliEnv(h.taskQueue, { AGENT_STATUS_TIMEOUT_MS: '30000' }));
  const handleOf = (runId: string): WorkflowHandle<AgentWorkflow> => h.client.workflow.getHandle<AgentWorkflow>(runId);

  /** Failed with `code` and one `error:` line matching `pattern`. */
  function expectRefusal(r: ScriptResult, code: number, pattern: RegExp): void {
    expect(r.code, r.stderr).toBe(code);
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: /);
    expect(lines[0]).toMatch(pattern);
  }

  /** The run's own record: the request still pending, nobody's approval counted, none recorded, nothing sent. */
  async function expectUndecided(runId: string, requestId: string, transferId: string): Promise<void> {
    const view = await handleOf(runId).query(stateQuery);
    expect(view.state.phase.name).toBe('awaiting_approval');
    expect(view.awaiting).toMatchObject({ requestId, approvedBy: [] });
    expect(view.state.approvals).toEqual([]);
    expect(await reissueCalls(h.world, transferId)).toEqual([]);
  }

  async function awaitingRun(): Promise<{ transferId: string; runId: string; run: RunInput }> {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED' });
    const run: RunInput = { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } };
    const handle = await startRun(h, run);
    return { transferId, runId: handle.workflowId, run };
  }

  it('the id status printed does not approve another call raised under the same request id by a new execution; the new id does', async () => {
    const { transferId, runId, run } = await awaitingRun();
    const first = await waitForRequest(handleOf(runId));
    const [human, asJson] = await Promise.all([cli('status', runId), cli('status', runId, '--json')]);
    expect(human.code, human.stderr).toBe(0);
    const shownId = /^ {2}request\s+(\S+)$/m.exec(human.stdout)?.[1];
    expect(shownId).toBe(pinned(first.requestId, first.digest));
    expect(JSON.parse(asJson.stdout)).toMatchObject({ awaiting: { requestId: first.requestId, digest: first.digest, pinnedRequestId: shownId } });

    // Someone who can reach the frontend ends the run and starts it again: the same request id, another digest.
    await handleOf(runId).terminate('test: started again under the same id');
    await startRun(h, run);
    const second = await waitForRequest(handleOf(runId));
    expect(second.requestId).toBe(first.requestId);
    expect(second.digest).not.toBe(first.digest);

    const [approved, denied, amended] = await Promise.all([
      cli('approve', runId, shownId ?? '', '--key', aliceKey, '--comment', 'checked the call status showed'),
      cli('deny', runId, shownId ?? '', '--key', aliceKey),
      cli('amend', runId, shownId ?? '', '--args', JSON.stringify({ transferId }), '--key', aliceKey),
    ]);
    // The refusal names the mismatch and what is pending now, under its own pinned id.
    const mismatch = new RegExp(
      `request ${escape(first.requestId)} on run ${escape(runId)} is not the call you were shown \\(${escape(shownId ?? '')}\\): pending under that id now is ${escape(pinned(second.requestId, second.digest))}: reissue_transfer .*; nothing was signed`,
    );
    expectRefusal(approved, 1, mismatch);
    expectRefusal(denied, 1, mismatch);
    expectRefusal(amended, 1, mismatch);
    await expectUndecided(runId, second.requestId, transferId);

    // The id status prints now is the new call's, and approves it.
    const again = await cli('status', runId);
    const newId = /^ {2}request\s+(\S+)$/m.exec(again.stdout)?.[1] ?? '';
    expect(newId).toBe(pinned(second.requestId, second.digest));
    const ok = await cli('approve', runId, newId, '--key', aliceKey, '--json');
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ decision: 'approved', requestId: second.requestId, digest: second.digest, by: keys.alice.id });
    expect((await handleOf(runId).result()).terminal.class).toBe('resolved');
    expect(await reissueCalls(h.world, transferId)).toHaveLength(1);
  });

  it("another request's digest is refused by the CLI and by AgentClient; watch's digest pins; a bare id still decides", async () => {
    const agent = new AgentClient({ client: h.client, taskQueue: h.taskQueue });
    const [x, y] = await Promise.all([awaitingRun(), awaitingRun()]);
    const [xReq, yReq] = await Promise.all([waitForRequest(handleOf(x.runId)), waitForRequest(handleOf(y.runId))]);

    // X's request id with Y's digest: X's pending call is not that one.
    const [crossed, malformed] = await Promise.all([
      cli('approve', x.runId, pinned(xReq.requestId, yReq.digest), '--key', aliceKey),
      cli('approve', x.runId, `${xReq.requestId}#not-hex`, '--key', aliceKey),
    ]);
    expectRefusal(crossed, 1, /is not the call you were shown .*; nothing was signed \(approve\)$/);
    expectRefusal(malformed, 2, /must be given as 16 to 64 hex characters/);
    const refused = await agent.deny(x.runId, xReq.requestId, keys.alice, { digest: yReq.digest }).catch((err: unknown) => err);
    expect(RequestNotPendingError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toMatch(/is not the call you were shown/);
    await expectUndecided(x.runId, xReq.requestId, x.transferId);

    // Watch prints the pinned id and hands a program the digest, which decides the call it showed.
    const watchedHuman = cli('watch', x.runId);
    const watchedJson = cli('watch', x.runId, '--json');
    let digest: string | undefined;
    for await (const item of agent.watch(x.runId)) {
      if (item.type !== 'approval_request') continue;
      digest = item.digest;
      break;
    }
    expect(digest).toBe(xReq.digest);
    await expect(agent.approve(x.runId, xReq.requestId, keys.alice, { digest })).resolves.toMatchObject({ decision: 'approved', digest: xReq.digest });
    const [human, json] = await Promise.all([watchedHuman, watchedJson]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`(request ${pinned(xReq.requestId, xReq.digest)}, expires`);
    const items = json.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    expect(items.filter((i) => i.type === 'approval_request')).toEqual([
      expect.objectContaining({ requestId: xReq.requestId, digest: xReq.digest, pinnedRequestId: pinned(xReq.requestId, xReq.digest) }),
    ]);

    // A bare id pins nothing and still decides whatever is pending under it, as scripts use it.
    const bare = await cli('approve', y.runId, yReq.requestId, '--key', aliceKey);
    expect(bare.code, bare.stderr).toBe(0);
    expect((await handleOf(y.runId).result()).terminal.class).toBe('resolved');
  });
});
