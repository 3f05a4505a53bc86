// Payments: a transfer left the payer's account but may not have reached the
// beneficiary. Three read views disagree on purpose (a lagging replica, the
// authoritative ledger, the processor's ack) and one effect can fix it: a reissue.
import { randomUUID } from 'node:crypto';
import { FenceRequest, ReissueRequest, type PaymentSeed, type LedgerView, type ProcessorView, type ReplicaView, type Reissue } from './contract.js';
import { HttpError, ok, param, parseBody, peek, type DomainRoute, type RouteInput } from './http.js';
import type { WorldStore } from './store.js';
import type { TransferRow } from './tables.js';
import { findOrFence, refuseIfFenced } from './fencing.js';

// Upsert; also forgets earlier reissues so a test can reuse a transferId.
export function seedPayment(store: WorldStore, seed: PaymentSeed): void {
  store.seedTransfer({ ...seed, replicaNote: seed.replicaNote ?? '', seededAt: new Date().toISOString() });
}

export function paymentRoutes(store: WorldStore): DomainRoute[] {
  const transfer = (transferId: string): TransferRow => {
    const t = store.getTransfer(transferId);
    if (!t) throw new HttpError(404, { error: 'transfer_not_found', transferId });
    return t;
  };
  const byTransferParam = (input: RouteInput) => ({ key: input.params.transferId ?? null, idempotencyKey: null });
  // The transferId is only known once the reissue exists; before that a request under a key is
  // matched by the key alone.
  const byReissueKey = (input: RouteInput) => {
    const idempotencyKey = input.params.idempotencyKey ?? null;
    const found = idempotencyKey === null ? undefined : store.getReissueByKey(idempotencyKey);
    return { key: found?.transferId ?? null, idempotencyKey };
  };

  return [
    {
      method: 'GET',
      path: '/payments/replica/:transferId',
      op: 'payments.replica',
      subject: byTransferParam,
      handle(input) {
        const t = transfer(param(input, 'transferId'));
        // The replica is cheap but stale: it reports a moment in the past.
        const view: ReplicaView = {
          transferId: t.transferId,
          status: t.replicaStatus,
          asOf: new Date(Date.now() - t.replicaLagMs).toISOString(),
          note: t.replicaNote,
        };
        return ok(view);
      },
    },
    {
      method: 'GET',
      path: '/payments/ledger/:transferId',
      op: 'payments.ledger',
      subject: byTransferParam,
      handle(input) {
        const t = transfer(param(input, 'transferId'));
        const settled = t.ledgerStatus === 'SETTLED';
        const view: LedgerView = {
          transferId: t.transferId,
          status: t.ledgerStatus,
          postedAt: settled ? t.seededAt : null,
          asOf: new Date().toISOString(),
          amountMinor: t.amountMinor,
          currency: t.currency,
          receiptId: settled ? `rcpt_${t.transferId}` : null,
          // The ledger knows what it has already paid out again: one reissue per transfer.
          reissueId: store.getReissueByTransfer(t.transferId)?.reissueId ?? null,
          destination: t.destination,
        };
        return ok(view);
      },
    },
    {
      method: 'GET',
      path: '/payments/processor/:transferId',
      op: 'payments.processor',
      subject: byTransferParam,
      handle(input) {
        const t = transfer(param(input, 'transferId'));
        const view: ProcessorView = {
          transferId: t.transferId,
          ack: t.processorAck,
          ackAt: t.processorAck === 'NONE' ? null : t.seededAt,
          asOf: new Date().toISOString(),
        };
        return ok(view);
      },
    },
    {
      method: 'POST',
      path: '/payments/reissue',
      op: 'payments.reissue',
      subject: ({ body }) => ({ key: peek(body, 'transferId'), idempotencyKey: peek(body, 'idempotencyKey') }),
      handle(input) {
        const req = parseBody(ReissueRequest, input.body);
        return store.transaction(() => {
          // Replays are answered from the stored effect before any other check,
          // so a retry after a lost response always sees what actually happened.
          const existing = store.getReissueByKey(req.idempotencyKey);
          if (existing) {
            if (existing.transferId !== req.transferId) {
              throw new HttpError(409, { error: 'idempotency_key_conflict', transferId: existing.transferId });
            }
            return ok({ ...existing, deduplicated: true });
          }
          refuseIfFenced(store, req.idempotencyKey, req.sentAt);
          const t = transfer(req.transferId);
          if (t.ledgerStatus === 'SETTLED') {
            throw new HttpError(409, { error: 'transfer_not_reissuable', ledgerStatus: t.ledgerStatus });
          }
          const reissue: Reissue = {
            reissueId: `rsi_${randomUUID()}`,
            transferId: t.transferId,
            idempotencyKey: req.idempotencyKey,
            destination: t.destination,
            amountMinor: t.amountMinor,
            currency: t.currency,
            createdAt: new Date().toISOString(),
          };
          store.insertReissue({ ...reissue, reason: req.reason });
          return ok({ ...reissue, deduplicated: false });
        });
      },
    },
    {
      method: 'GET',
      path: '/payments/reissues/by-key/:idempotencyKey',
      op: 'payments.reissue_readback',
      subject: byReissueKey,
      handle(input) {
        const reissue = store.getReissueByKey(param(input, 'idempotencyKey')) ?? null;
        return ok({ applied: reissue !== null, reissue });
      },
    },
    {
      // The readback that also fences: in one transaction, so a request either committed before
      // it (and is found) or is refused after it.
      method: 'POST',
      path: '/payments/reissues/by-key/:idempotencyKey/fence',
      op: 'payments.reissue_readback',
      subject: byReissueKey,
      handle(input) {
        const { before, transferId } = parseBody(FenceRequest, input.body);
        return findOrFence(store, param(input, 'idempotencyKey'), { subject: transferId, before }, 'reissue', (key) => store.getReissueByKey(key));
      },
    },
  ];
}
