// The operators' console in a real browser (Debian's chromium, driven by playwright-core) on the
// shared dev server and world: an approver loads their key file into the inbox page, the page
// signs with WebCrypto Ed25519 and the run's validator accepts it, so the reissue reaches the
// processor exactly once; forged and stale decisions made in the page are refused with the
// validator's words and nothing reaches the world; a <script> planted in a log line shows as
// text on the run page and never runs. Screenshots land in test/console/artifacts/ (and one of
// each in docs/ for the README).
import { copyFileSync, mkdirSync } from 'node:fs';
import { get } from 'node:http';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import type { KeyFile } from '../../client/sign.js';
import { startConsole, CONTENT_SECURITY_POLICY, type RunningConsole } from '../../console/server.js';
import { seedIncident, seedTransfer } from '../../domains/world/seeds.js';
import { stateQuery } from '../../workflows/messages.js';
import { digestOf } from '../../workflows/trust/statement.js';
import { reissueCalls, reissuesOf, waitForRequest, type AgentHandle } from '../adversarial/support.js';
import { uniqueCase, useAgentHarness } from '../helpers/agent.js';
import { keys } from '../helpers/keys.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const artifacts = fileURLToPath(new URL('./artifacts/', import.meta.url));
const docs = fileURLToPath(new URL('../../docs/', import.meta.url));
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

describe('the operators\' console, in chromium', () => {
  const h = useAgentHarness();
  let agent: AgentClient;
  let web: RunningConsole;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  /** Anything the browser reports about the Content-Security-Policy: the pages must never trip it. */
  const cspViolations: string[] = [];

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true });
    agent = new AgentClient({ client: h.client, taskQueue: h.taskQueue });
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
    await item.waitFor({ timeout: 20_000 });
    return item;
  }

  async function loadKey(page: Page, key: KeyFile, name = 'approver.key') {
    await page.setInputFiles('#key-file', { name, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(key, null, 2)) });
    await expect.poll(() => page.locator('#key-status').textContent()).toMatch(new RegExp(`Signing as ${key.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  }

  /** Clicks approve (or deny) on the item and returns the outcome the page shows. */
  async function decide(item: ReturnType<Page['locator']>, decision: 'approve' | 'deny', comment = ''): Promise<string> {
    const outcome = item.locator('.outcome');
    await item.locator('input[name="comment"]').fill(comment);
    await item.locator(`button[data-decision="${decision}"]`).click();
    await expect.poll(() => outcome.textContent(), { timeout: 20_000 }).not.toMatch(/^$|^sending/);
    return (await outcome.textContent()) ?? '';
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
    expect(await decide(item, 'approve', 'let me')).toMatch(/^refused by the run: .*mallory@evil may not decide/);
    // Mallory's key in a file that says it is alice's: the signature does not verify under alice's key.
    await loadKey(page, { ...keys.mallory, id: keys.alice.id }, 'alice-forged.key');
    expect(await decide(item, 'approve')).toMatch(/^refused by the run: .*signature does not verify under alice@ops/);
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
    await page.locator(`article.request[data-run-id="${runId}"]`).waitFor({ state: 'detached', timeout: 20_000 });

    // Its page: the turns, the applied effect, the signed approval.
    await page.goto(`${web.url}/runs/${runId}`);
    await expect.poll(() => page.locator('.summary .status').textContent()).toMatch(/resolved/);
    expect(await page.locator('section.effects').textContent()).toMatch(/reissue_transfer[\s\S]*applied/);
    expect(await page.locator('section.approvals').textContent()).toContain(keys.alice.id);
    await page.screenshot({ path: `${artifacts}run-payments.png`, fullPage: true });
    copyFileSync(`${artifacts}inbox.png`, `${docs}console-inbox.png`);
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
    await expect.poll(() => page.locator('.summary .status').textContent(), { timeout: 30_000 }).toMatch(/resolved/);
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
    copyFileSync(`${artifacts}run-incident.png`, `${docs}console-run.png`);
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
        { timeout: 20_000, interval: 500 },
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
    const crossSite = await fetch(`${web.url}/api/decisions`, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'http://attacker.example' }, body: '{}' });
    expect(crossSite.status).toBe(403);
  });
});
