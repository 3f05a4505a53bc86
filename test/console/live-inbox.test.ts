// The approval inbox while requests come and go, in a real chromium against the test's dev server,
// world and worker. A request that arrives is listed above the one an approver is about to approve,
// pushing its card down; a click that lands on a card a live update just moved is not taken (the
// page's clock is held still, so "just" is the mechanism, not a race), and once the card has
// settled the same click approves it, and only it. An inbox that shows fewer runs than wait says
// so and how to list the rest, instead of leaving the others off the page as if nobody waited.
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { startConsole, type RunningConsole } from '../../console/server.js';
import { payments } from '../../domains/payments/domain.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { reissuesOf, waitForRequest, type AgentHandle } from '../support/adversarial.js';
import { uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { PATIENCE_MS, waitUntil } from '../support/wait.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('the live approval inbox, in chromium', () => {
  const h = useAgentHarness();
  let agent: AgentClient;
  let web: RunningConsole;
  /** The same inbox showing one run at most. */
  let narrow: RunningConsole;
  let browser: Browser;
  let context: BrowserContext | undefined;

  beforeAll(async () => {
    agent = new AgentClient({ client: h.client, taskQueue: h.taskQueue, domains: [payments] });
    [web, narrow, browser] = await Promise.all([
      startConsole({ agent, pollMs: 500, stateTimeoutMs: 2_000 }),
      startConsole({ agent, pollMs: 500, stateTimeoutMs: 2_000, inboxLimit: 1 }),
      chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }),
    ]);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await Promise.all([web?.close(), narrow?.close()]);
  });

  /** A payments run waiting for a person to approve a reissue, its approvers known. */
  async function waitingRun(): Promise<{ transferId: string; runId: string; handle: AgentHandle }> {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
    const started = await agent.start({ domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const handle: AgentHandle = h.client.workflow.getHandle(started.runId);
    await waitForRequest(handle);
    return { transferId, runId: started.runId, handle };
  }

  const listedWaiting = (runIds: string[]) =>
    waitUntil(
      async () => {
        const listed = new Set((await agent.list({ phase: 'awaiting_approval', served: true, limit: 1_000 })).map((r) => r.runId));
        return runIds.every((id) => listed.has(id)) ? true : undefined;
      },
      `runs ${runIds.join(', ')} listed as awaiting approval`,
    );

  it('a card pushed down by a new request ignores the click that lands on it until it settles; an inbox past its limit says more wait', async () => {
    const a = await waitingRun();
    const handles = [a.handle];
    try {
      await listedWaiting([a.runId]);
      context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const sent: string[] = [];
      page.on('request', (r) => void (r.url().endsWith('/api/decisions') && sent.push(r.postData() ?? '')));
      // The page's timers and clock are the test's: a moment after a move lasts until the test moves time on.
      await page.clock.install();
      await page.goto(`${web.url}/inbox`);
      const cardA = page.locator(`article.request[data-run-id="${a.runId}"]`);
      await cardA.waitFor({ timeout: PATIENCE_MS });
      await page.setInputFiles('#key-file', { name: 'alice.key', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(keys.alice)) });
      await expect.poll(() => page.locator('#key-status').textContent()).toMatch(/Signing as alice@ops/);
      const approveA = cardA.locator('button[data-decision="approve"]');
      // As served, the card takes a click at once.
      expect(await approveA.getAttribute('data-settling')).toBeNull();
      await page.clock.pauseAt(Date.now() + 1_000);

      // A second request arrives while the approver reaches for the first card's Approve.
      const b = await waitingRun();
      handles.push(b.handle);
      await page.locator(`article.request[data-run-id="${b.runId}"]`).waitFor({ timeout: PATIENCE_MS });
      expect(await page.locator('article.request').first().getAttribute('data-run-id')).toBe(b.runId);
      expect(await approveA.getAttribute('data-settling')).not.toBeNull();
      await approveA.click();
      expect(await cardA.locator('.outcome').textContent()).toMatch(/^not taken: this card moved or changed just before your click/);
      expect(sent).toEqual([]);
      expect(await page.locator('#decision-log li').count()).toBe(0);

      // Both wait now: the inbox that shows one says that more wait, and how to list them; the other shows both.
      await listedWaiting([a.runId, b.runId]);
      const narrowPage = await (await fetch(`${narrow.url}/inbox`)).text();
      expect(narrowPage.match(/<article\s+class="request"/g)).toHaveLength(1);
      expect(narrowPage).toContain('More runs wait for approval than the 1 shown here');
      expect(narrowPage).toContain('agent list --awaiting-approval --limit 1000');
      const widePage = await (await fetch(`${web.url}/inbox`)).text();
      expect(widePage.match(/<article\s+class="request"/g)).toHaveLength(2);
      expect(widePage).not.toContain('More runs wait for approval');

      // Time moves on: the card has settled, and the same click approves it, and only it.
      await page.clock.resume();
      await cardA.locator('button[data-decision="approve"]:not([data-settling])').click();
      await expect.poll(() => page.locator('#decision-log li').first().textContent(), { timeout: PATIENCE_MS }).toMatch(/approved by alice@ops/);
      expect((await a.handle.result()).terminal.class).toBe('resolved');
      expect(await reissuesOf(h.world, a.transferId)).toHaveLength(1);
      expect(await reissuesOf(h.world, b.transferId)).toEqual([]);
      expect(sent).toHaveLength(1);
      expect((JSON.parse(sent[0]!) as { statement: { runId: string } }).statement.runId).toBe(a.runId);
    } finally {
      await Promise.all(handles.map((handle) => handle.terminate('test over').catch(() => undefined)));
    }
  });
});
