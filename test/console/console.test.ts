// The operators' console in a real browser (Debian's chromium, driven by playwright-core) on the
// shared dev server and world: an approver loads their key file into the inbox page, the page
// signs with WebCrypto Ed25519 and the run's validator accepts it, so the reissue reaches the
// processor exactly once; forged and stale decisions made in the page are refused with the
// validator's words and nothing reaches the world; a <script> planted in a log line shows as
// text on the run page and never runs. Screenshots land in test/console/artifacts/ (docs/'s
// two come from approval-card.test.ts, on request only).
import { mkdirSync } from 'node:fs';
import { get } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { PATIENCE_MS, waitUntil } from '../support/wait.js';
import type { KeyFile } from '../../client/sign.js';
import { startConsole, CONTENT_SECURITY_POLICY, type RunningConsole } from '../../console/server.js';
import { seedIncident, seedTransfer } from '../../domains/world/seeds.js';
import { agentWorkflow } from '../../domains/workflows.js';
import { stateQuery } from '../../workflows/messages.js';
import { runSearchAttributes } from '../../workflows/search-attributes.js';
import { digestOf } from '../../workflows/trust/statement.js';
import { reissueCalls, reissuesOf, waitForRequest, type AgentHandle } from '../support/adversarial.js';
import { uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { uniqueTaskQueue } from '../support/temporal.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const artifacts = fileURLToPath(new URL('./artifacts/', import.meta.url));
const HOSTILE = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';

/** A GET with its own Host header (fetch keeps the URL's), as a DNS-rebinding page's request arrives. */
function statusWithHost(url: string, host: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode);
    }).on('error', reject);
  });
}

describe("the operators' console, in chromium", () => {
  const h = useAgentHarness();
  let agent: AgentClient;
  let web: RunningConsole;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  /** Anything the browser reports about the Content-Security-Policy: the pages must never trip it. */
  const cspViolations: string[] = [];
  /** Every run the console sent a state query to (a real client interceptor counts them). */
  const queried: string[] = [];

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true });
    const counting = new Client({
      connection: h.client.connection,
      namespace: h.client.options.namespace,
      interceptors: { workflow: [{ query: (input, next) => (queried.push(input.workflowExecution.workflowId), next(input)) }] },
    });
    agent = new AgentClient({ client: counting, taskQueue: h.taskQueue });
    // Runs other test files left waiting without a worker answer nothing: do not wait long for them.
    [web, browser] = await Promise.all([
      startConsole({ agent, pollMs: 500, stateTimeoutMs: 2_000 }),
      chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }),
    ]);
  });
  afterAll(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    await browser?.close();
    await web?.close();
  });

  async function newPage(options: { clockSkewMs?: number } = {}): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.on('console', (m) => void (/Content Security Policy/i.test(m.text()) && cspViolations.push(m.text())));
    if (options.clockSkewMs) await page.clock.setFixedTime(Date.now() + options.clockSkewMs);
    return page;
  }

  /** The inbox with the run's request on it (the visibility store may take a moment to list it). */
  async function openInbox(page: Page, runId: string) {
    await page.goto(`${web.url}/inbox`);
    const item = page.locator(`article.request[data-run-id="${runId}"]`);
    await item.waitFor({ timeout: PATIENCE_MS });
    return item;
  }

  async function loadKey(page: Page, key: KeyFile, name = 'approver.key') {
    await page.setInputFiles('#key-file', { name, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(key, null, 2)) });
    await expect.poll(() => page.locator('#key-status').textContent()).toMatch(new RegExp(`Signing as ${key.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  }

  /**
   * Clicks approve (or deny) on the item and returns the outcome the page shows, read from the
   * page's decision log: an accepted decision takes its card away at once, outcome line and all.
   */
  async function decide(item: ReturnType<Page['locator']>, decision: 'approve' | 'deny', comment = ''): Promise<string> {
    const log = item.page().locator('#decision-log li');
    const before = await log.count();
    await item.locator('input[name="comment"]').fill(comment);
    // A button a live update just moved takes no click for a moment (static/console.js): wait it out, as a person would.
    await item.locator(`button[data-decision="${decision}"]:not([data-settling])`).click();
    await expect.poll(() => log.count(), { timeout: PATIENCE_MS }).toBeGreaterThan(before);
    return ((await log.first().textContent()) ?? '').replace(/^\S+ \S+ \S+ \(request [^)]*\): /, '');
  }

  async function payingRun(): Promise<{ transferId: string; runId: string; handle: AgentHandle }> {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const started = await agent.start({ domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const handle: AgentHandle = h.client.workflow.getHandle(started.runId);
    return { transferId, runId: started.runId, handle };
  }

  it('approving in the page releases the reissue exactly once; forged and stale decisions from the page are refused and reach nothing', async () => {
    const { transferId, runId, handle } = await payingRun();
    const awaiting = await waitForRequest(handle);
    expect(awaiting.tool).toBe('reissue_transfer');

    const page = await newPage();
    const sent: string[] = [];
    page.on('request', (r) => void (r.url().endsWith('/api/decisions') && sent.push(r.postData() ?? '')));
    let item = await openInbox(page, runId);
    // The exact call, its subject, the evidence, the precondition and the digest are on the page.
    await expect.poll(() => item.locator('pre.call').textContent()).toContain('reissue_transfer');
    expect(await item.locator('pre.call').textContent()).toContain(transferId);
    expect(await item.locator('dd code').first().textContent()).toBe(awaiting.subject);
    expect(await item.locator('code.digest').textContent()).toBe(awaiting.digest);
    expect(await item.locator('.precondition').textContent()).toMatch(/holds|VIOLATED/);
    expect(await item.locator('.evidence').count()).toBe(awaiting.evidenceIds.length);
    expect(awaiting.evidenceIds.length).toBeGreaterThan(0);
    await page.screenshot({ path: `${artifacts}inbox.png`, fullPage: true });

    const nothingReachedTheWorld = async () => {
      expect(await reissueCalls(h.world, transferId)).toEqual([]);
      expect(await reissuesOf(h.world, transferId)).toEqual([]);
      const view = await handle.query(stateQuery);
      expect(view.awaiting?.requestId).toBe(awaiting.requestId);
      expect(view.state.approvals).toEqual([]);
    };

    // Mallory loads her own key: she is in no directory.
    await loadKey(page, keys.mallory, 'mallory.key');
    expect(await decide(item, 'approve', 'let me')).toMatch(/^refused by the run: .*the signer may not decide/);
    // Mallory's key in a file that says it is alice's: the signature does not verify under alice's key.
    await loadKey(page, { ...keys.mallory, id: keys.alice.id }, 'alice-forged.key');
    expect(await decide(item, 'approve')).toMatch(/^refused by the run: .*signature does not verify under the signer's directory key/);
    await nothingReachedTheWorld();

    // Alice's real key on a stale page that shows (and signs) another call, digest and all.
    await loadKey(page, keys.alice, 'alice.key');
    const otherArgs = { ...(awaiting.args as Record<string, unknown>), transferId: `${transferId}-OTHER` };
    const staleDigest = digestOf({ runId, requestId: awaiting.requestId, tool: awaiting.tool, args: otherArgs, subject: awaiting.subject ?? null });
    await item.evaluate(
      (el, [call, digest]) => {
        el.setAttribute('data-call', call as string);
        el.setAttribute('data-digest', digest as string);
      },
      [JSON.stringify({ tool: awaiting.tool, args: otherArgs, subject: awaiting.subject ?? null }), staleDigest],
    );
    expect(await decide(item, 'approve')).toMatch(/^refused by the run: .*not the one that would run/);
    // A digest that does not belong to the call shown is not even signed.
    const before = sent.length;
    await item.evaluate((el) => el.setAttribute('data-digest', 'ab'.repeat(32)));
    expect(await decide(item, 'approve')).toMatch(/not signed: the digest does not match the call shown/);
    expect(sent.length).toBe(before);
    await nothingReachedTheWorld();

    // Alice's real key in a browser whose clock is two hours behind: the statement has expired.
    const skewed = await newPage({ clockSkewMs: -2 * 3_600_000 });
    const skewedItem = await openInbox(skewed, runId);
    await loadKey(skewed, keys.alice, 'alice.key');
    expect(await decide(skewedItem, 'approve')).toMatch(/^refused by the run: .*expired/);
    await nothingReachedTheWorld();
    // Every refusal went through the console as the browser signed it: the page held the key, the server never did.
    expect(sent.length).toBeGreaterThanOrEqual(3);
    for (const body of sent) expect(Object.keys(JSON.parse(body) as object).sort()).toEqual(['signature', 'statement']);

    // The real thing, on a fresh page.
    item = await openInbox(page, runId);
    await loadKey(page, keys.alice, 'alice.key');
    expect(await decide(item, 'approve', 'ledger checked in the console')).toMatch(/^approved by alice@ops/);
    expect(await page.locator('#decision-log li').first().textContent()).toMatch(/approved by alice@ops/);

    const result = await handle.result();
    expect(result.terminal.class).toBe('resolved');
    expect(await reissuesOf(h.world, transferId)).toHaveLength(1);
    expect(await h.world.effects({ key: transferId })).toHaveLength(1);
    expect(await reissueCalls(h.world, transferId)).toHaveLength(1);
    const view = await handle.query(stateQuery);
    expect(view.state.approvals).toHaveLength(1);
    expect(view.state.approvals[0]).toMatchObject({ decision: 'approved', by: keys.alice.id, comment: 'ledger checked in the console' });
    expect(view.state.approvals[0]?.signed?.[0]?.statement.by).toBe(keys.alice.id);
    // The request leaves the inbox by itself.
    await page.locator(`article.request[data-run-id="${runId}"]`).waitFor({ state: 'detached', timeout: PATIENCE_MS });

    // Its page: the turns, the applied effect, the signed approval.
    await page.goto(`${web.url}/runs/${runId}`);
    await expect.poll(() => page.locator('.summary .status').textContent()).toMatch(/resolved/);
    expect(await page.locator('section.effects').textContent()).toMatch(/reissue_transfer[\s\S]*applied/);
    expect(await page.locator('section.approvals').textContent()).toContain(keys.alice.id);
    await page.screenshot({ path: `${artifacts}run-payments.png`, fullPage: true });
    expect(cspViolations).toEqual([]);
  });

  it('a <script> in a log line shows as quoted untrusted text on the live run page and never runs', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId, { faulty: { service: 'cache', fault: 'memory' }, hostileLogLine: HOSTILE });
    const page = await newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const started = await agent.start({ domain: 'incidents', caseId, model: { adapter: 'rules' } });
    const response = await page.goto(`${web.url}/runs/${started.runId}`);
    expect(response?.headers()['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    // Opened while the run moves: the page follows it to its end by itself.
    await expect.poll(() => page.locator('.summary .status').textContent(), { timeout: PATIENCE_MS }).toMatch(/resolved/);
    await expect.poll(() => page.locator('#live-status').textContent()).toMatch(/ended/);

    const quoted = page.locator('.untrusted pre.quoted', { hasText: '<script>' });
    await expect.poll(() => quoted.count()).toBeGreaterThan(0);
    expect(await quoted.first().textContent()).toContain(HOSTILE);
    expect(await page.locator('.untrusted .untrusted-label').first().textContent()).toMatch(/UNTRUSTED TEXT/);
    expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(await page.locator('main script, img[src="x"]').count()).toBe(0);
    expect(await page.locator('section.effects').textContent()).toMatch(/restart_service[\s\S]*applied/);
    // The same after a full reload (server-rendered, not only the live fragment).
    await page.reload();
    expect(await page.locator('.untrusted pre.quoted', { hasText: '<script>' }).count()).toBeGreaterThan(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(errors).toEqual([]);
    await page.screenshot({ path: `${artifacts}run-incident.png`, fullPage: true });
    expect(cspViolations).toEqual([]);
  });

  it('the runs list filters by domain, phase and terminal class and shows how each run ended', async () => {
    const caseId = uniqueCase('INC');
    await seedIncident(h.world, caseId);
    const started = await agent.start({ domain: 'incidents', caseId, model: { adapter: 'rules' } });
    await h.client.workflow.getHandle(started.runId).result();
    const page = await newPage();
    const row = page.locator(`tr[data-run-id="${started.runId}"]`);
    await expect
      .poll(
        async () => {
          await page.goto(`${web.url}/?domain=incidents&terminal=resolved&phase=terminal`);
          return row.count();
        },
        { timeout: PATIENCE_MS, interval: 500 },
      )
      .toBe(1);
    expect(await row.textContent()).toMatch(/resolved\s*probe_confirmed/);
    expect(await page.locator('select[name="terminal"] option[selected]').textContent()).toBe('resolved');
    await page.goto(`${web.url}/?domain=payments&terminal=resolved`);
    expect(await row.count()).toBe(0);

    // A bad filter is a readable message; a request for another host is refused.
    const bad = await fetch(`${web.url}/?phase=nonsense`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('phase must be one of');
    expect(await statusWithHost(`${web.url}/`, 'attacker.example')).toBe(421);
    const crossSite = await fetch(`${web.url}/api/decisions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://attacker.example' },
      body: '{}',
    });
    expect(crossSite.status).toBe(403);
  });

  /**
   * A run the server lists as waiting for approval on a task queue no worker polls, as a run is
   * after its worker went away while it waited (the visibility record is the same).
   */
  async function strandedRun(): Promise<{ handle: WorkflowHandle; queue: string; caseId: string }> {
    const queue = uniqueTaskQueue('stranded');
    const run = { domain: 'payments', caseId: uniqueCase('PX'), model: { adapter: 'rules' as const } };
    const handle = await h.client.workflow.start(agentWorkflow, {
      taskQueue: queue,
      workflowId: `payments-${run.caseId}`,
      args: [{ run }],
      typedSearchAttributes: runSearchAttributes(run, 'awaiting_approval'),
    });
    return { handle, queue, caseId: run.caseId };
  }

  /** Loads the inbox `times` times in a row: the first load's time and the median, in ms. */
  async function inboxLoads(times: number): Promise<{ first: number; median: number }> {
    const ms: number[] = [];
    for (let i = 0; i < times; i++) {
      const t0 = performance.now();
      const response = await fetch(`${web.url}/inbox`);
      expect(response.status).toBe(200);
      await response.text();
      ms.push(performance.now() - t0);
    }
    const first = ms[0] ?? NaN;
    return { first, median: ms.sort((a, b) => a - b)[Math.floor(ms.length / 2)] ?? NaN };
  }

  it('runs no worker polls: the inbox says so without asking them, their page and the runs list answer from the server; a terminated one says terminated', async () => {
    const N = 5;
    const none = await inboxLoads(5);
    const stranded = await Promise.all(Array.from({ length: N }, () => strandedRun()));
    try {
      await waitUntil(
        async () => {
          const listed = new Set((await agent.list({ phase: 'awaiting_approval', limit: 1_000 })).map((r) => r.runId));
          return stranded.every((r) => listed.has(r.handle.workflowId)) ? true : undefined;
        },
        'the stranded runs listed as awaiting approval',
        { everyMs: 200 },
      );
      const withStranded = await inboxLoads(5);
      // A benchmark line, not an assertion: the inbox's time should not grow with runs nobody serves.
      const said = (t: { first: number; median: number }) => `first ${t.first.toFixed(0)} ms, median ${t.median.toFixed(0)} ms`;
      console.log(`benchmark: console inbox load (5 loads each, not asserted): with ${N} runs no worker polls ${said(withStranded)}; with none ${said(none)}`);

      const [first] = stranded;
      if (!first) throw new Error('no stranded run');
      const runId = first.handle.workflowId;
      const page = await newPage();
      await page.goto(`${web.url}/inbox`);
      const notice = page.locator(`p.notice[data-run-id="${runId}"]`);
      expect(await notice.textContent()).toContain(
        `waits for approval, but no worker is polling task queue ${first.queue}: nobody can decide it until a worker serves that queue`,
      );
      expect(await page.locator(`p.problem[data-run-id="${runId}"]`).count()).toBe(0);
      expect(await page.locator('#inbox-live').textContent()).not.toContain('Nobody is being waited for.');

      const response = await page.goto(`${web.url}/runs/${runId}`);
      expect(response?.status()).toBe(200);
      expect(await page.locator('.server-truth').textContent()).toContain(
        `no worker is polling task queue ${first.queue}; showing what the server knows (the state query was not sent)`,
      );
      expect(await page.locator('.summary').textContent()).toContain(first.caseId);

      await page.goto(`${web.url}/?domain=payments&phase=awaiting_approval`);
      expect(await page.locator(`tr[data-run-id="${runId}"] .notice`).textContent()).toBe(`no worker is polling task queue ${first.queue}`);
      // Not one of those pages sent a stranded run a state query: the server said nobody would answer.
      expect(queried.filter((id) => stranded.some((r) => r.handle.workflowId === id))).toEqual([]);

      await first.handle.terminate('test: stranded run cleared');
      await page.goto(`${web.url}/runs/${runId}`);
      expect(await page.locator('.server-truth').textContent()).toMatch(
        /terminated at \S+ by \S+: test: stranded run cleared; the run recorded no outcome and will not move again/,
      );
      await expect.poll(() => page.locator('#live-status').textContent()).toMatch(/ended/);
      expect(cspViolations).toEqual([]);
    } finally {
      await Promise.all(stranded.map((r) => r.handle.terminate('test cleanup').catch(() => undefined)));
    }
  });

  it('after an approval the card leaves at once: the decision wakes the inbox, even one that polls every two minutes', async () => {
    const slowWeb = await startConsole({ agent, pollMs: 60_000, stateTimeoutMs: 2_000 });
    try {
      const { runId, handle } = await payingRun();
      await waitForRequest(handle);
      await waitUntil(
        async () => ((await agent.list({ phase: 'awaiting_approval', limit: 1_000 })).some((r) => r.runId === runId) ? true : undefined),
        'the run listed as awaiting',
        {
          everyMs: 200,
        },
      );
      const page = await newPage();
      await page.goto(`${slowWeb.url}/inbox`);
      const item = page.locator(`article.request[data-run-id="${runId}"]`);
      await item.waitFor({ timeout: PATIENCE_MS });
      await loadKey(page, keys.alice, 'alice.key');
      await item.locator('button[data-decision="approve"]:not([data-settling])').click();
      // The card may be gone before its outcome line can be read: the decision log keeps it.
      await expect.poll(() => page.locator('#decision-log li').first().textContent(), { timeout: PATIENCE_MS }).toMatch(/approved by alice@ops/);
      // The next poll is two minutes away: only the decision's wake-up can take the card away this soon.
      await item.waitFor({ state: 'detached', timeout: PATIENCE_MS });
      expect((await handle.result()).terminal.class).toBe('resolved');
    } finally {
      await slowWeb.close();
    }
  });
});
