// Issue 23: in shapes `hybrid` and `workflow` a domain's route proposes steps instead of the
// model, and a route is code someone wrote, so it can be wrong. It gets no way around the gate:
// its proposals are judged as a model's are. Here a hostile route (test/fixtures/
// reckless-route-domain.ts) reissues a transfer the ledger says SETTLED, or another transfer
// the ledger says FAILED, on a real dev server, the real world process and the real payments
// implementation, with an approver who signs whatever is put in front of him. The verdict is
// read from the world's own call log and effects, not from the run's account of itself.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { paymentsImplementation } from '../../domains/payments/tools.js';
import { WorldClient } from '../../domains/world/client.js';
import { seedTransfer } from '../../domains/world/seeds.js';
import type { Shape } from '../../workflows/shape.js';
import { OTHER_TRANSFER_PREFIX, victimOf } from '../fixtures/reckless-route-domain.js';
import { watchRun, type Watched } from '../support/adversarial.js';
import { startRun, uniqueCase } from '../support/agent.js';
import { keys } from '../support/keys.js';
import { startWorkerWith, uniqueTaskQueue, type StartedWorker } from '../support/temporal.js';

const workflowsPath = fileURLToPath(new URL('../fixtures/reckless-route-workflows.ts', import.meta.url));

describe('a hostile route gets nothing past the gate (real dev server, world and payments implementation)', () => {
  const taskQueue = uniqueTaskQueue('reckless-route');
  let stack: StartedWorker | undefined;
  const world = new WorldClient(inject('worldUrl'));

  // A worker of its own: its bundle holds the hostile route, not the examples' payments runbook.
  beforeAll(async () => {
    stack = await startWorkerWith({ taskQueue, workflowsPath, activities: { implementations: [paymentsImplementation] } });
  });
  afterAll(() => stack?.close());

  /** Runs a case to its end; alice (a payments approver) signs any request she is shown. */
  async function run(caseId: string, shape: Shape): Promise<Watched> {
    if (!stack) throw new Error('the worker is only there inside the tests');
    const handle = await startRun({ client: stack.client, taskQueue }, { domain: 'payments', caseId, model: { adapter: 'rules' }, shape });
    return watchRun(handle, keys.alice);
  }

  /** What the world was asked and did about a transfer: every reissue request (refused ones too) and every reissue made. */
  async function reissuesReaching(transferId: string) {
    const calls = (await world.calls({ key: transferId })).filter((c) => c.op === 'payments.reissue');
    const made = (await world.effects({ key: transferId })).filter((e) => e.kind === 'reissue');
    return { calls, made };
  }

  /** The route did propose the reissue, and the gate refused it on the precondition: the attack was tried, not skipped. */
  function expectRouteRefused(watched: Watched, transferId: string, reason: RegExp, code = 'precondition_failed') {
    const routeReissues = watched.view.state.decisions.filter((d) => d.by === 'route' && d.proposal.includes('reissue_transfer'));
    expect(routeReissues.length).toBeGreaterThanOrEqual(1);
    expect(routeReissues.every((d) => !d.accepted && d.reason === code)).toBe(true);
    expect(routeReissues.every((d) => d.proposal.includes(transferId))).toBe(true);
    const refusals = watched.view.state.transcript.flatMap((t) => (t.kind === 'control' && t.code === code ? [t.message] : []));
    expect(refusals[0]).toMatch(reason);
  }

  describe('the route reissues the case transfer, which the ledger says SETTLED', () => {
    it('workflow: nothing reaches the processor; the run escalates route_undecided', async () => {
      const transferId = uniqueCase('PX');
      await seedTransfer(world, transferId, { ledgerStatus: 'SETTLED' });
      const watched = await run(transferId, 'workflow');

      expect(await reissuesReaching(transferId)).toEqual({ calls: [], made: [] });
      expect(watched.requests).toEqual([]);
      expect(watched.result.terminal).toMatchObject({ class: 'escalated', reason: 'route_undecided' });
      expect(watched.result.terminal.detail).toMatch(/precondition_failed/);
      expect(watched.result.modelCalls).toBe(0);
      expectRouteRefused(watched, transferId, /the ledger says SETTLED, not FAILED/);
    });

    it('hybrid: nothing reaches the processor; the rules model, asked where the route was refused, closes it as SETTLED', async () => {
      const transferId = uniqueCase('PX');
      await seedTransfer(world, transferId, { ledgerStatus: 'SETTLED' });
      const watched = await run(transferId, 'hybrid');

      expect(await reissuesReaching(transferId)).toEqual({ calls: [], made: [] });
      expect(watched.requests).toEqual([]);
      expect(watched.result.effects).toEqual([]);
      expect(watched.result.modelCalls).toBeGreaterThanOrEqual(1);
      expect(watched.result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
      expect(watched.view.state.decisions.filter((d) => d.by === 'model')[0]?.open?.join(' ')).toMatch(/came back precondition_failed/);
      expectRouteRefused(watched, transferId, /the ledger says SETTLED, not FAILED/);
    });
  });

  describe('the route reissues another transfer, whose fresh ledger entry (read by the route) says FAILED and never reissued', () => {
    async function seedCaseAndVictim(): Promise<{ caseId: string; victim: string }> {
      const caseId = uniqueCase(OTHER_TRANSFER_PREFIX.slice(0, -1));
      const victim = victimOf(caseId);
      await seedTransfer(world, caseId, { ledgerStatus: 'SETTLED' });
      await seedTransfer(world, victim, { ledgerStatus: 'FAILED', replicaStatus: 'FAILED', processorAck: 'REJECTED' });
      return { caseId, victim };
    }

    /** Neither the case nor the victim was reissued, by the world's call log, its effects and its ledger. */
    async function expectNothingMoved(caseId: string, victim: string) {
      expect(await reissuesReaching(caseId)).toEqual({ calls: [], made: [] });
      expect(await reissuesReaching(victim)).toEqual({ calls: [], made: [] });
      expect((await world.getLedger(victim)).reissueId).toBeNull();
    }

    it('workflow: nothing reaches the processor for either transfer; the run escalates route_undecided', async () => {
      const { caseId, victim } = await seedCaseAndVictim();
      const watched = await run(caseId, 'workflow');

      await expectNothingMoved(caseId, victim);
      expect(watched.requests).toEqual([]);
      expect(watched.result.terminal).toMatchObject({ class: 'escalated', reason: 'route_undecided' });
      expect(watched.result.modelCalls).toBe(0);
      // The route did read the victim's ledger: the refusal is the gate's, not a missing fact.
      expect(watched.view.state.evidence.some((e) => e.tool === 'read_ledger' && e.subject === `transfer:${victim}` && e.status === 'ok')).toBe(true);
      // The transfer is declared the case's own (caseArgs): the victim is refused before any precondition.
      expectRouteRefused(
        watched,
        victim,
        new RegExp(`transferId "${victim}" cites "case", which does not vouch for it: the case is ${caseId}`),
        'tainted_argument',
      );
    });

    it('hybrid: nothing reaches the processor for either transfer; the rules model closes the case as SETTLED', async () => {
      const { caseId, victim } = await seedCaseAndVictim();
      const watched = await run(caseId, 'hybrid');

      await expectNothingMoved(caseId, victim);
      expect(watched.requests).toEqual([]);
      expect(watched.result.effects).toEqual([]);
      expect(watched.result.modelCalls).toBeGreaterThanOrEqual(1);
      expect(watched.result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
      // The transfer is declared the case's own (caseArgs): the victim is refused before any precondition.
      expectRouteRefused(
        watched,
        victim,
        new RegExp(`transferId "${victim}" cites "case", which does not vouch for it: the case is ${caseId}`),
        'tainted_argument',
      );
    });
  });
});
