// The wire contract of the world service, shared by the server and WorldClient.
// Request bodies are zod schemas (the server validates with them, the client
// takes their input types); responses are plain interfaces.
import { z } from 'zod';

export const PAYMENT_STATUSES = ['PENDING', 'SETTLED', 'FAILED', 'NOT_FOUND'] as const;
export const PROCESSOR_ACKS = ['RECEIVED', 'REJECTED', 'NONE'] as const;
export const SERVICES = ['api', 'db', 'cache'] as const;
export const SERVICE_FAULTS = ['memory', 'bad_deploy'] as const;
export const OPS = [
  'payments.replica',
  'payments.ledger',
  'payments.processor',
  'payments.reissue',
  'payments.reissue_readback',
  'incidents.metrics',
  'incidents.logs',
  'incidents.deploys',
  'incidents.restart',
  'incidents.revert',
  'incidents.effect_readback',
  'incidents.verify',
] as const;
export const FAULT_MODES = ['error500', 'timeout', 'slow', 'reject', 'commit_then_hang', 'commit_then_500', 'commit_then_drop'] as const;
export const HOLD_POINTS = ['before_commit', 'after_commit'] as const;

export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export type ProcessorAck = (typeof PROCESSOR_ACKS)[number];
export type Service = (typeof SERVICES)[number];
export type ServiceFault = (typeof SERVICE_FAULTS)[number];
export type Op = (typeof OPS)[number];
export type FaultMode = (typeof FAULT_MODES)[number];
export type HoldPoint = (typeof HOLD_POINTS)[number];

const id = z.string().min(1).max(200);

// Strict: destination and amount come from the stored transfer, so a request
// that tries to supply them is a bug (or an injection) and must fail loudly.
/**
 * Every request also carries `sentAt`, the sender's stamp (epoch ms: a fenced key refuses a request
 * sent before its fence), and `approvedWith`, the fingerprints of the signed statements the request
 * goes out under (statements.ts).
 */
const approvedWith = z.array(id).max(8).optional();
export const ReissueRequest = z.strictObject({
  transferId: id,
  idempotencyKey: id,
  reason: z.string().max(2000),
  sentAt: z.number().int().optional(),
  approvedWith,
});
/** `transferId`: what the key is about, so seeding the transfer again clears its fence. */
export const FenceRequest = z.strictObject({ before: z.number().int(), transferId: id });
export const RestartRequest = z.strictObject({ service: z.enum(SERVICES), idempotencyKey: id, sentAt: z.number().int().optional(), approvedWith });
export const RevertRequest = z.strictObject({
  service: z.enum(SERVICES),
  toVersion: id,
  idempotencyKey: id,
  sentAt: z.number().int().optional(),
  approvedWith,
});
/** `caseId`: what the key is about, so seeding the case again clears its fence. */
export const IncidentFenceRequest = z.strictObject({ before: z.number().int(), caseId: id });

export const PaymentSeed = z.strictObject({
  transferId: id,
  ledgerStatus: z.enum(PAYMENT_STATUSES),
  replicaStatus: z.enum(PAYMENT_STATUSES),
  replicaLagMs: z.number().int().min(0),
  replicaNote: z.string().optional(),
  processorAck: z.enum(PROCESSOR_ACKS),
  amountMinor: z.number().int().min(0),
  currency: z.string().min(1).max(10),
  destination: id,
});
export const IncidentSeed = z.strictObject({
  caseId: id,
  faulty: z.strictObject({ service: z.enum(SERVICES), fault: z.enum(SERVICE_FAULTS) }).nullable(),
  /** A second broken service (a case outside a one-fault runbook); never the same as `faulty`. */
  alsoFaulty: z.strictObject({ service: z.enum(SERVICES), fault: z.enum(SERVICE_FAULTS) }).optional(),
  hostileLogLine: z.string().optional(),
  logPadBytes: z.number().int().min(0).max(50_000_000).optional(),
  /** The faulty service's memory fault survives a restart: the restart commits (effect stored, 200) but cures nothing. */
  stubborn: z.boolean().optional(),
});
export const FaultSpec = z.strictObject({
  op: z.enum(OPS),
  key: id.optional(),
  mode: z.enum(FAULT_MODES),
  times: z
    .number()
    .int()
    .refine((n) => n === -1 || n >= 1, 'times must be >= 1, or -1 for forever')
    .default(1),
  delayMs: z.number().int().min(0).default(0),
});
export const HoldSpec = z.strictObject({ op: z.enum(OPS), key: id.optional(), point: z.enum(HOLD_POINTS) });
/** A service's fault coming back after it was remediated. */
export const Relapse = z.strictObject({ service: z.enum(SERVICES), fault: z.enum(SERVICE_FAULTS) });

export type ReissueRequest = z.input<typeof ReissueRequest>;
export type FenceRequest = z.input<typeof FenceRequest>;
export type IncidentFenceRequest = z.input<typeof IncidentFenceRequest>;
export type RestartRequest = z.input<typeof RestartRequest>;
export type RevertRequest = z.input<typeof RevertRequest>;
export type PaymentSeed = z.input<typeof PaymentSeed>;
export type IncidentSeed = z.input<typeof IncidentSeed>;
export type FaultSpec = z.input<typeof FaultSpec>;
export type HoldSpec = z.input<typeof HoldSpec>;
export type Relapse = z.input<typeof Relapse>;

export interface ReplicaView {
  transferId: string;
  status: PaymentStatus;
  asOf: string;
  note: string;
}
export interface LedgerView {
  transferId: string;
  status: PaymentStatus;
  postedAt: string | null;
  asOf: string;
  amountMinor: number;
  currency: string;
  receiptId: string | null;
  reissueId: string | null;
  /** The beneficiary's account: where the transfer (and any reissue) goes. */
  destination: string;
}
export interface ProcessorView {
  transferId: string;
  ack: ProcessorAck;
  ackAt: string | null;
  asOf: string;
}
export interface Reissue {
  reissueId: string;
  transferId: string;
  idempotencyKey: string;
  destination: string;
  amountMinor: number;
  currency: string;
  createdAt: string;
}
export interface ReissueResult extends Reissue {
  deduplicated: boolean;
}
export interface ReissueReadback {
  applied: boolean;
  reissue: Reissue | null;
  /** Present when the readback fenced the key: no request sent before the fence can commit now. */
  fenced?: boolean;
}

export interface MetricsView {
  service: Service;
  errorRate: number;
  latencyP99Ms: number;
  memoryPct: number;
  healthy: boolean;
  asOf: string;
  /** The orchestrator's last restart or revert of this service (as `kubectl` shows restarts). */
  lastEffect: Pick<IncidentEffect, 'kind' | 'effectId' | 'idempotencyKey' | 'appliedAt'> | null;
}
export interface LogsView {
  service: Service;
  lines: string[];
  asOf: string;
}
export interface DeploysView {
  service: Service;
  current: string;
  previous: string;
  deployedAt: string;
}
export interface IncidentEffect {
  effectId: string;
  kind: 'restart' | 'revert';
  caseId: string;
  service: Service;
  toVersion: string | null;
  idempotencyKey: string;
  appliedAt: string;
}
export interface IncidentEffectResult extends IncidentEffect {
  deduplicated: boolean;
}
export interface IncidentEffectReadback {
  applied: boolean;
  effect: IncidentEffect | null;
  /** Present when the readback fenced the key. */
  fenced?: boolean;
}
export interface VerifyView {
  healthy: boolean;
  degraded: Service[];
  asOf: string;
}

// 'pending' is only visible for the instant between arrival and the first decision.
export type CallOutcome = 'pending' | 'ok' | 'rejected' | 'held' | 'error' | `fault:${FaultMode}`;
export interface CallRecord {
  seq: number;
  at: string;
  op: Op;
  key: string | null;
  idempotencyKey: string | null;
  params: Record<string, string>;
  body: unknown;
  outcome: CallOutcome;
  deduplicated?: boolean;
}
export interface EffectRecord {
  kind: 'reissue' | 'restart' | 'revert';
  effectId: string;
  key: string;
  idempotencyKey: string;
  at: string;
  details: Record<string, unknown>;
}
export interface HoldState {
  holdId: string;
  reached: boolean;
  released: boolean;
}
