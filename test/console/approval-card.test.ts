// The approval card as an approver at a 1280x800 screen sees it, in a real chromium against the
// test's dev server, world and worker: the payments card states what will move (amount and
// currency, beneficiary, the ledger's word) beside the call, and its Approve button is on
// screen without scrolling; once approved, the finished run's page leads with its headline
// (what it did, and how it ended). Screenshots land in test/console/artifacts/; with
// UPDATE_DOCS_SCREENSHOTS=1 they are also copied to docs/ (a plain test run leaves docs alone).
import { copyFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { startConsole, type RunningConsole } from '../../console/server.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { stateQuery } from '../../workflows/messages.js';
import { reissuesOf, waitForRequest, type AgentHandle } from '../support/adversarial.js';
import { uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys } from '../support/keys.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const artifacts = fileURLToPath(new URL('./artifacts/', import.meta.url));
const docs = fileURLToPath(new URL('../../docs/', import.meta.url));
const VIEWPORT = { width: 1280, height: 800 };
const BENEFICIARY = 'DE89370400440532013000';

describe('the approval card at 1280x800, in chromium', () => {
  const h = useAgentHarness();
  let agent: AgentClient;
  let web: RunningConsole;
  let browser: Browser;
  let context: BrowserContext | undefined;

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true });
    agent = new AgentClient({ client: h.client, taskQueue: h.taskQueue });
    [web, browser] = await Promise.all([
      startConsole({ agent, pollMs: 500, stateTimeoutMs: 2_000 }),
      chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }),
    ]);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await web?.close();
  });

  async function newPage(): Promise<Page> {
    context = await browser.newContext({ viewport: VIEWPORT });
    return context.newPage();
  }

  it('shows amount, currency, beneficiary and ledger state beside the call, with Approve on screen; the finished run leads with its headline', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, {
      ledgerStatus: 'FAILED',
      replicaStatus: 'FAILED',
      processorAck: 'REJECTED',
      amountMinor: 12_500,
      currency: 'EUR',
      destination: BENEFICIARY,
    });
    const started = await agent.start({ domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const handle: AgentHandle = h.client.workflow.getHandle(started.runId);
    const awaiting = await waitForRequest(handle);
    expect(awaiting.display).toMatchObject({ amount: '125.00', currency: 'EUR', beneficiary: BENEFICIARY });

    const page = await newPage();
    await page.goto(`${web.url}/inbox`);
    const item = page.locator(`article.request[data-run-id="${started.runId}"]`);
    await item.waitFor({ timeout: 20_000 });

    // What will move, from the run's facts, beside the exact call.
    const display = item.locator('table.display');
    const row = (label: string) => display.locator('tr', { has: page.locator(`th:text-is("${label}")`) }).locator('td');
    expect(await row('amount').textContent()).toBe('125.00');
    expect(await row('currency').textContent()).toBe('EUR');
    expect(await row('beneficiary').textContent()).toBe(BENEFICIARY);
    expect(await row('ledger state').textContent()).toMatch(/^FAILED \(e\d+, fresh; never reissued\)$/);
    expect(await item.locator('pre.call').textContent()).toContain(transferId);
    expect(await item.locator('code.digest').textContent()).toBe(awaiting.digest);
    // The evidence is there, folded below the decision.
    expect(await item.locator('details.rests .evidence').count()).toBe(awaiting.evidenceIds.length);
    expect(await item.locator('details.rests').getAttribute('open')).toBeNull();

    // Nothing scrolled, nothing wider than the screen, and the buttons sit inside it. Runs other
    // test files park may be listed above this one: the card's own layout must put Approve no
    // lower than the screen allows when it is the first card (which it is when run alone).
    const scrolled = await page.evaluate(() => {
      const w = globalThis as unknown as { scrollX: number; scrollY: number; document: { documentElement: { scrollWidth: number } } };
      return { x: w.scrollX, y: w.scrollY, width: w.document.documentElement.scrollWidth };
    });
    expect(scrolled).toEqual({ x: 0, y: 0, width: VIEWPORT.width });
    const approve = item.locator('button[data-decision="approve"]');
    const [card, button, deny, first] = await Promise.all([
      item.boundingBox(),
      approve.boundingBox(),
      item.locator('button[data-decision="deny"]').boundingBox(),
      page.locator('article.request').first().boundingBox(),
    ]);
    if (!card || !button || !deny || !first) throw new Error('the card or its buttons have no box');
    const topIfFirst = first.y + (button.y - card.y);
    expect(topIfFirst).toBeGreaterThanOrEqual(0);
    expect(topIfFirst + button.height).toBeLessThanOrEqual(VIEWPORT.height);
    expect(first.y + (deny.y - card.y) + deny.height).toBeLessThanOrEqual(VIEWPORT.height);
    for (const b of [button, deny]) expect(b.x + b.width).toBeLessThanOrEqual(VIEWPORT.width);
    const alone = first.y === card.y;
    if (alone) {
      expect(button.y + button.height).toBeLessThanOrEqual(VIEWPORT.height);
      await page.screenshot({ path: `${artifacts}inbox-1280x800.png` });
    }

    // Approve from the page, as an approver would.
    await page.setInputFiles('#key-file', { name: 'alice.key', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(keys.alice)) });
    await expect.poll(() => page.locator('#key-status').textContent()).toMatch(/Signing as alice@ops/);
    await item.locator('input[name="comment"]').fill('125.00 EUR to the same beneficiary, ledger FAILED');
    await approve.click();
    // The decision log stays when the card leaves the inbox (the run moves on at once).
    await expect.poll(() => page.locator('#decision-log li').first().textContent(), { timeout: 20_000 }).toMatch(/approved by alice@ops/);
    const result = await handle.result();
    expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    const [reissued] = await reissuesOf(h.world, transferId);
    expect(reissued).toBeDefined();
    const reissueId = String(reissued?.effectId);

    // The finished run says what it did first: the reissue and its id, and how it ended.
    const view = await handle.query(stateQuery);
    expect(view.headline).toBe(`reissued ${transferId} (125.00 EUR) as ${reissueId}; the ledger has the original FAILED · resolved (probe_confirmed)`);
    // The Temporal Web UI shows the same line as the run's current details (its metadata query).
    const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toBe(view.headline);
    await page.goto(`${web.url}/runs/${started.runId}`);
    expect(await page.locator('.summary p.headline').textContent()).toBe(view.headline);
    const headlineBox = await page.locator('.summary p.headline').boundingBox();
    expect((headlineBox?.y ?? VIEWPORT.height) + (headlineBox?.height ?? 0)).toBeLessThanOrEqual(VIEWPORT.height);
    expect(
      await page
        .locator('.summary dd')
        .filter({ hasText: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/ })
        .count(),
    ).toBeGreaterThan(0);
    await page.screenshot({ path: `${artifacts}run-reissue-1280x800.png` });

    if (process.env.UPDATE_DOCS_SCREENSHOTS === '1') {
      if (!alone) throw new Error('another run was listed above this one: run this file alone to update the docs screenshots');
      copyFileSync(`${artifacts}inbox-1280x800.png`, `${docs}console-inbox.png`);
      copyFileSync(`${artifacts}run-reissue-1280x800.png`, `${docs}console-run.png`);
    }
  });
});
