// The approval inbox in a real chromium while a look-alike run waits beside a real one: the
// look-alike (the engine's workflow name and search attributes, a queue and worker of its own)
// answers a copy of the real request whose card says 0.01 EUR, with the digest of those lines.
// The inbox offers one card for the request, the real run's with the real amount; the runs list
// and its page mark the look-alike as not served by this engine's queue and offer no "decide"; a card
// whose lines were changed under the page is not signed; and the real card, approved, moves exactly
// what it showed. The card says what is read again before the call runs from the tool's contract.
import { fileURLToPath } from 'node:url';
import type { WorkflowHandle } from '@temporalio/client';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { startConsole, type RunningConsole } from '../../console/server.js';
import { payments } from '../../domains/payments/domain.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import { approvalDigest } from '../../workflows/controller/approval-request.js';
import { stateQuery, type RunView as StateAnswer } from '../../workflows/messages.js';
import { runSearchAttributes } from '../../workflows/search-attributes.js';
import { reissueCalls, reissuesOf, waitForRequest, type AgentHandle } from '../support/adversarial.js';
import { uniqueCase, useAgentHarness } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { startForeignWorker, uniqueTaskQueue } from '../support/temporal.js';
import { PATIENCE_MS, waitUntil } from '../support/wait.js';
import { suiteBundle } from '../support/bundles.js';
import { pendingRequest } from '../support/phase.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const lookalikeWorkflows = fileURLToPath(new URL('../fixtures/lookalike-workflows.ts', import.meta.url));

describe('the approval inbox beside a look-alike run, in chromium', () => {
  const h = useAgentHarness();
  const attackerQueue = uniqueTaskQueue('lookalike');
  let stopAttacker: () => Promise<void>;
  let agent: AgentClient;
  let web: RunningConsole;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    stopAttacker = await startForeignWorker(attackerQueue, { workflowBundle: await suiteBundle(lookalikeWorkflows) });
    agent = new AgentClient({ client: h.client, taskQueue: h.taskQueue, domains: [payments] });
    [web, browser] = await Promise.all([
      startConsole({ agent, pollMs: 500, stateTimeoutMs: 2_000 }),
      chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }),
    ]);
  });
  afterAll(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    await browser?.close();
    await web?.close();
    await stopAttacker?.();
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    return context.newPage();
  }

  it('offers only the real card, marks the look-alike, signs no card whose lines changed, and the real card moves what it showed', async () => {
    const transferId = uniqueCase('PX');
    await seedTransfer(h.world, transferId, {
      ledgerStatus: 'FAILED',
      replicaStatus: 'FAILED',
      processorAck: 'REJECTED',
      amountMinor: 999_999_900,
      currency: 'EUR',
    });
    const started = await agent.start({ domain: 'payments', caseId: transferId, model: { adapter: 'rules' } });
    const handle: AgentHandle = h.client.workflow.getHandle(started.runId);
    const awaiting = await waitForRequest(handle);
    expect(awaiting.display?.amount).toBe('9999999.00');

    // The look-alike: the real answer, 0.01 on its card, and the digest of exactly those lines.
    const real = await handle.query(stateQuery);
    const pending = pendingRequest(real.state);
    if (!pending || !real.awaiting) throw new Error('the real run is not waiting');
    const display = { ...real.awaiting.display, amount: '0.01' };
    const digest = approvalDigest(real.state.runId, awaiting.requestId, pending.call, real.state.chain, display);
    const answer: StateAnswer = {
      ...real,
      state: { ...real.state, phase: { name: 'awaiting_approval', request: { ...pending, display, digest } } },
      awaiting: { ...real.awaiting, display, digest },
    };
    const lookalike: WorkflowHandle = await h.client.workflow.start('agentWorkflow', {
      taskQueue: attackerQueue,
      workflowId: `payments-${transferId}-review`,
      args: [{ answer }],
      typedSearchAttributes: runSearchAttributes({ domain: 'payments', caseId: transferId }, 'awaiting_approval'),
    });
    try {
      await waitUntil(
        async () => (await agent.list({ domain: 'payments', phase: 'awaiting_approval', limit: 10_000 })).some((r) => r.runId === lookalike.workflowId),
        'the look-alike listed as awaiting approval',
      );

      const page = await newPage();
      const sent: string[] = [];
      page.on('request', (r) => void (r.url().endsWith('/api/decisions') && sent.push(r.postData() ?? '')));
      await page.goto(`${web.url}/inbox`);
      const card = page.locator(`article.request[data-request-id="${awaiting.requestId}"]`);
      await card.first().waitFor({ timeout: PATIENCE_MS });
      // One card for the request, the real run's, with the real amount; no card anywhere says 0.01.
      expect(await card.count()).toBe(1);
      expect(await card.getAttribute('data-run-id')).toBe(started.runId);
      const amount = card.locator('table.display tr', { has: page.locator('th:text-is("amount")') }).locator('td');
      expect(await amount.textContent()).toBe('9999999.00');
      expect(await page.locator('article.request table.display td', { hasText: /^0\.01$/ }).count()).toBe(0);
      // What is read again before the call runs, from reissue_transfer's contract.
      expect(await card.locator('.card-call p.small').textContent()).toMatch(/Before the call runs, the run reads read_ledger again/);
      expect(await page.locator('#inbox-live').textContent()).not.toContain('the ledger is read again');

      // The runs list marks it, and offers no decision on it.
      await page.goto(`${web.url}/?domain=payments&phase=awaiting_approval`);
      const row = page.locator(`tr[data-run-id="${lookalike.workflowId}"]`);
      expect(await row.locator('.foreign').textContent()).toMatch(/^not served by this engine's queue \(task queue lookalike-\S+\): not one of its runs$/);
      expect(await row.locator('a', { hasText: 'decide' }).count()).toBe(0);
      expect(await page.locator(`tr[data-run-id="${started.runId}"] .foreign`).count()).toBe(0);
      // Its page says so and shows nothing it answers.
      await page.goto(`${web.url}/runs/${lookalike.workflowId}`);
      expect(await page.locator('.server-truth').textContent()).toMatch(/NOT ONE OF THIS ENGINE'S RUNS: not served by this engine's queue/);
      // The forged amount as a number of its own, not the digits of a time on the page ("17:53:10.012Z").
      expect(await page.locator('main').textContent()).not.toMatch(/(?<![\d.:])0\.01(?!\d)/);
      expect(await page.locator('main a[href^="/inbox"]').count()).toBe(0);

      // The real card with its lines changed under the page (0.01), its digest left as the run reports it: not signed, nothing sent.
      await page.goto(`${web.url}/inbox`);
      await card.waitFor({ timeout: PATIENCE_MS });
      await page.setInputFiles('#key-file', { name: 'alice.key', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(keys.alice)) });
      await expect.poll(() => page.locator('#key-status').textContent()).toMatch(/Signing as alice@ops/);
      await card.evaluate((el) => {
        const call = JSON.parse(el.getAttribute('data-call') ?? '{}') as { display?: Record<string, string> };
        el.setAttribute('data-call', JSON.stringify({ ...call, display: { ...call.display, amount: '0.01' } }));
      });
      await card.locator('button[data-decision="approve"]:not([data-settling])').click();
      // The decision log keeps what became of the click (a card that was approved leaves the page).
      const log = page.locator('#decision-log li');
      await expect.poll(() => log.count()).toBeGreaterThan(0);
      expect(await log.first().textContent()).toMatch(/not signed: .*the card does not match the digest the run reports; do not approve/);
      expect(sent).toEqual([]);
      expect(await reissueCalls(h.world, transferId)).toEqual([]);
      expect((await handle.query(stateQuery)).awaiting?.requestId).toBe(awaiting.requestId);

      // The real card as the run shows it: approved, it moves exactly what it showed.
      await page.goto(`${web.url}/inbox`);
      await card.waitFor({ timeout: PATIENCE_MS });
      await page.setInputFiles('#key-file', { name: 'alice.key', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(keys.alice)) });
      await expect.poll(() => page.locator('#key-status').textContent()).toMatch(/Signing as alice@ops/);
      await card.locator('button[data-decision="approve"]:not([data-settling])').click();
      await expect.poll(() => page.locator('#decision-log li').first().textContent(), { timeout: PATIENCE_MS }).toMatch(/approved by alice@ops/);
      expect((await handle.result()).terminal.class).toBe('resolved');
      const reissued = await reissuesOf(h.world, transferId);
      expect(reissued).toHaveLength(1);
      expect(await reissueCalls(h.world, transferId)).toHaveLength(1);
      // The look-alike was sent nothing to replay.
      expect(await lookalike.query<unknown[]>('received')).toEqual([]);
    } finally {
      await lookalike.terminate('test over').catch(() => undefined);
      await handle.terminate('test over').catch(() => undefined);
    }
  });
});
