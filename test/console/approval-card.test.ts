// The approval card as an approver at a 1280x800 screen sees it, in a real chromium against the
// test's dev server, world and worker: the payments card states what will move (amount and
// currency, beneficiary, the ledger's word) beside the call, who started the run (a signed
// start) and who proposed the call (the domain's rules), the processor's RECEIVED apart as a
// fact against the reissue, what each evidence id is and the decision's lifetime in words; its
// Approve button is on screen without scrolling; once approved, the finished run's page leads
// with its headline (what it did, and how it ended). A denied request says who denied it, on the
// run's page and in the Temporal Web UI's details. Screenshots land in test/console/artifacts/; with
// UPDATE_DOCS_SCREENSHOTS=1 they are also copied to docs/ (a plain test run leaves docs alone).
import { copyFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PATIENCE_MS } from '../support/wait.js';
import { AgentClient } from '../../client/agent-client.js';
import { signStart } from '../../client/sign.js';
import { startConsole, type RunningConsole } from '../../console/server.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { stateQuery } from '../../workflows/messages.js';
import { caseRunId } from '../../workflows/run-identity.js';
import type { RunInput } from '../../workflows/run-input.js';
import { runBinding } from '../../workflows/trust/run-binding.js';
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

  it('shows the starter, the proposer, the fact against the call and what will move, with Approve on screen; the finished run leads with its headline', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, {
      ledgerStatus: 'FAILED',
      replicaStatus: 'FAILED',
      // The processor has the original: the authoritative fact that argues against moving the money again.
      processorAck: 'RECEIVED',
      amountMinor: 12_500,
      currency: 'EUR',
      destination: BENEFICIARY,
    });
    // carol starts the run with her key: the card names her as its verified starter.
    const settings: RunInput = { domain: 'payments', caseId: transferId, model: { adapter: 'rules' } };
    const bound = runBinding(inject('temporalNamespace'), settings);
    const started = await agent.start({ ...settings, start: signStart(keys.carol, caseRunId('payments', transferId), { bound }) });
    const handle: AgentHandle = h.client.workflow.getHandle(started.runId);
    const awaiting = await waitForRequest(handle);
    expect(awaiting.display).toMatchObject({ amount: '125.00', currency: 'EUR', beneficiary: BENEFICIARY });
    expect(awaiting.display?.['against: processor ack']).toMatch(/^RECEIVED \(e\d+, fresh\)/);

    const page = await newPage();
    await page.goto(`${web.url}/inbox`);
    const item = page.locator(`article.request[data-run-id="${started.runId}"]`);
    await item.waitFor({ timeout: PATIENCE_MS });

    // What will move, from the run's facts, beside the exact call.
    const display = item.locator('table.display');
    const row = (label: string) => display.locator('tr', { has: page.locator(`th:text-is("${label}")`) }).locator('td');
    expect(await row('amount').textContent()).toBe('125.00');
    expect(await row('currency').textContent()).toBe('EUR');
    expect(await row('beneficiary').textContent()).toBe(BENEFICIARY);
    expect(await row('ledger state').textContent()).toMatch(/^FAILED \(e\d+, fresh; never reissued\)$/);
    // The processor's RECEIVED is not one of those lines: it stands apart, against the call.
    expect(await display.locator('th', { hasText: 'processor' }).count()).toBe(0);
    const against = item.locator('section.against');
    expect(await against.locator('th').textContent()).toBe('processor ack');
    expect(await against.locator('td').textContent()).toMatch(
      /^RECEIVED \(e\d+, fresh\): the processor has the original; if it still settles, a reissue pays twice$/,
    );
    // Who started the run and who proposed the call.
    expect(await item.locator('dd.starter').textContent()).toBe('carol@sre (signed start, verified)');
    expect(await item.locator('dd.proposer').textContent()).toBe("the domain's rules (a fixed policy, no language model)");
    // Each evidence id on the card says what it is; the lifetime is said in words.
    const ackId = /^RECEIVED \((e\d+),/.exec(awaiting.display?.['against: processor ack'] ?? '')?.[1] ?? 'none';
    const legend = item.locator('dl.ev-legend');
    expect(await legend.locator('dt', { hasText: new RegExp(`^${ackId}$`) }).count()).toBe(1);
    expect(await legend.textContent()).toMatch(
      new RegExp(`${ackId}\\s*read_processor_ack from processor \\(authoritative\\), observed \\S+ \\([^)]+ ago\\), fresh`),
    );
    // As read: the label's words around the chosen option.
    type Node = { nodeType: number; textContent: string | null };
    type Label = { childNodes: ArrayLike<Node>; querySelector(s: string): (Node & { selectedOptions: ArrayLike<Node> }) | null };
    const lifetime = await item.locator('label.lifetime').evaluate((el) => {
      const label = el as unknown as Label;
      const select = label.querySelector('select');
      return Array.from(label.childNodes, (n) => (n === select ? (select?.selectedOptions[0]?.textContent ?? '') : n.nodeType === 3 ? n.textContent : ''))
        .join(' ')
        .replace(/\s+/g, ' ')
        .trim();
    });
    expect(lifetime).toBe('Your approval is valid for 10 minutes after you sign');
    expect(await item.locator('select[name="validFor"]').inputValue()).toBe('600000');
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

    // Above the fold: the fact against the call and who proposed it, beside the buttons.
    for (const part of [against, item.locator('dd.starter'), item.locator('dd.proposer')]) {
      const box = await part.boundingBox();
      if (!box || !first) throw new Error('no box');
      expect(first.y + (box.y - card.y) + box.height).toBeLessThanOrEqual(VIEWPORT.height);
    }

    // Approve from the page, as an approver would.
    await page.setInputFiles('#key-file', { name: 'alice.key', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(keys.alice)) });
    await expect.poll(() => page.locator('#key-status').textContent()).toMatch(/Signing as alice@ops/);
    await item.locator('input[name="comment"]').fill('125.00 EUR to the same beneficiary, ledger FAILED');
    // Not one a live update has just moved (static/console.js ignores a click on it for a moment).
    await item.locator('button[data-decision="approve"]:not([data-settling])').click();
    // The decision log stays when the card leaves the inbox (the run moves on at once).
    await expect.poll(() => page.locator('#decision-log li').first().textContent(), { timeout: PATIENCE_MS }).toMatch(/approved by alice@ops/);
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

  it('a request denied from the card: the run page and the Web UI say who denied it and why', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'RECEIVED' });
    const started = await agent.start({ domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const handle: AgentHandle = h.client.workflow.getHandle(started.runId);
    const awaiting = await waitForRequest(handle);

    const page = await newPage();
    await page.goto(`${web.url}/inbox`);
    const item = page.locator(`article.request[data-run-id="${started.runId}"]`);
    await item.waitFor({ timeout: PATIENCE_MS });
    // Nobody signed this start: the card says so rather than naming anyone.
    expect(await item.locator('dd.starter').textContent()).toBe('unsigned start: no key vouches for who started it');
    await page.setInputFiles('#key-file', { name: 'alice.key', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(keys.alice)) });
    await expect.poll(() => page.locator('#key-status').textContent()).toMatch(/Signing as alice@ops/);
    await item.locator('input[name="comment"]').fill('the processor has the original');
    await item.locator('button[data-decision="deny"]:not([data-settling])').click();
    await expect.poll(() => page.locator('#decision-log li').first().textContent(), { timeout: PATIENCE_MS }).toMatch(/denied by alice@ops/);

    // The run ends (the payments rules escalate a denied reissue), and nothing moved.
    const result = await handle.result();
    expect(result.terminal.class).toBe('escalated');
    expect(await reissuesOf(h.world, transferId)).toEqual([]);
    const said = `request ${awaiting.requestId} denied by alice@ops: the processor has the original`;
    const view = await handle.query(stateQuery);
    const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toBe(`${view.headline}\n\n${said}`);
    await page.goto(`${web.url}/runs/${started.runId}`);
    expect(await page.locator('.summary p.headline').textContent()).toBe(view.headline);
    expect((await page.locator('.summary p.denied').textContent())?.replace(/\s+/g, ' ')).toBe(said);
  });
});
