// The world's tables as SQLite holds them, and each row as the world's code reads it: the schema
// every world file is created with, the row shapes, and the column lists that name a row's
// columns in the shape's own words. Said once, so a column added to a table is added here.
import type { FaultMode, Op, PaymentStatus, ProcessorAck, Service, ServiceFault } from './contract.js';

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS transfers (
  transfer_id TEXT PRIMARY KEY, ledger_status TEXT NOT NULL, replica_status TEXT NOT NULL,
  replica_lag_ms INTEGER NOT NULL, replica_note TEXT NOT NULL, processor_ack TEXT NOT NULL,
  amount_minor INTEGER NOT NULL, currency TEXT NOT NULL, destination TEXT NOT NULL, seeded_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS reissues (
  reissue_id TEXT PRIMARY KEY, idempotency_key TEXT NOT NULL UNIQUE, transfer_id TEXT NOT NULL,
  destination TEXT NOT NULL, amount_minor INTEGER NOT NULL, currency TEXT NOT NULL,
  reason TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS services (
  case_id TEXT NOT NULL, service TEXT NOT NULL, fault TEXT, current_version TEXT NOT NULL,
  previous_version TEXT NOT NULL, deployed_at TEXT NOT NULL, hostile_log_line TEXT,
  log_pad_bytes INTEGER NOT NULL, stubborn INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (case_id, service));
CREATE TABLE IF NOT EXISTS incident_effects (
  effect_id TEXT PRIMARY KEY, idempotency_key TEXT NOT NULL UNIQUE, case_id TEXT NOT NULL,
  kind TEXT NOT NULL, service TEXT NOT NULL, to_version TEXT, applied_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS calls (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, op TEXT NOT NULL, key TEXT,
  idempotency_key TEXT, params TEXT NOT NULL, body TEXT, outcome TEXT NOT NULL, deduplicated INTEGER);
CREATE INDEX IF NOT EXISTS calls_by_key ON calls (key);
CREATE TABLE IF NOT EXISTS statement_uses (
  fingerprint TEXT PRIMARY KEY, idempotency_key TEXT NOT NULL, decision TEXT NOT NULL, op TEXT NOT NULL, at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS fences (
  idempotency_key TEXT PRIMARY KEY, subject TEXT NOT NULL, fenced_before INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS faults (
  fault_id INTEGER PRIMARY KEY AUTOINCREMENT, op TEXT NOT NULL, key TEXT, mode TEXT NOT NULL,
  remaining INTEGER NOT NULL, delay_ms INTEGER NOT NULL);
`;

/** A signed statement the world decided a request under: an approval is spent once, here, whatever the run's history says. */
export interface StatementUse {
  fingerprint: string;
  idempotencyKey: string;
  decision: 'applied' | 'refused';
  op: string;
  at: string;
}

export interface TransferRow {
  transferId: string;
  ledgerStatus: PaymentStatus;
  replicaStatus: PaymentStatus;
  replicaLagMs: number;
  replicaNote: string;
  processorAck: ProcessorAck;
  amountMinor: number;
  currency: string;
  destination: string;
  seededAt: string;
}
export interface ServiceRow {
  caseId: string;
  service: Service;
  fault: ServiceFault | null;
  currentVersion: string;
  previousVersion: string;
  deployedAt: string;
  hostileLogLine: string | null;
  logPadBytes: number;
  /** 1 when a restart does not cure this service's memory fault (SQLite has no booleans). */
  stubborn: number;
}
export interface FaultRow {
  faultId: number;
  op: Op;
  key: string | null;
  mode: FaultMode;
  remaining: number;
  delayMs: number;
}
export interface NewCall {
  op: Op;
  key: string | null;
  idempotencyKey: string | null;
  params: Record<string, string>;
  body: unknown;
}

export const TRANSFER_COLS = `transfer_id AS transferId, ledger_status AS ledgerStatus, replica_status AS replicaStatus,
  replica_lag_ms AS replicaLagMs, replica_note AS replicaNote, processor_ack AS processorAck,
  amount_minor AS amountMinor, currency, destination, seeded_at AS seededAt`;
export const REISSUE_COLS = `reissue_id AS reissueId, transfer_id AS transferId, idempotency_key AS idempotencyKey,
  destination, amount_minor AS amountMinor, currency, created_at AS createdAt`;
export const SERVICE_COLS = `case_id AS caseId, service, fault, current_version AS currentVersion,
  previous_version AS previousVersion, deployed_at AS deployedAt, hostile_log_line AS hostileLogLine,
  log_pad_bytes AS logPadBytes, stubborn`;
export const EFFECT_COLS = `effect_id AS effectId, kind, case_id AS caseId, service, to_version AS toVersion,
  idempotency_key AS idempotencyKey, applied_at AS appliedAt`;
