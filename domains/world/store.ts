// All world state lives in one SQLite file so that it survives a world
// restart and can be inspected after a crash test. Every row is keyed by
// transferId or caseId, so concurrent test cases never see each other's data.
// What the tables are and how a row reads is tables.ts; this is what the world does with them.
import Database from 'better-sqlite3';
import type { CallOutcome, CallRecord, EffectRecord, IncidentEffect, Op, Reissue } from './contract.js';
import {
  EFFECT_COLS,
  REISSUE_COLS,
  SCHEMA,
  SERVICE_COLS,
  TRANSFER_COLS,
  type StatementUse,
  type TransferRow,
  type ServiceRow,
  type FaultRow,
  type NewCall,
} from './tables.js';

export class WorldStore {
  private readonly db: Database.Database;

  constructor(dbPath: string) {
    this.db = new Database(dbPath);
    // WAL lets a test or a human read the file while the world is writing it.
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    // A world file written before `stubborn` existed gets the column (every old row: 0, a restart cures).
    const columns = this.db.prepare('PRAGMA table_info(services)').all() as { name: string }[];
    if (!columns.some((c) => c.name === 'stubborn')) this.db.exec('ALTER TABLE services ADD COLUMN stubborn INTEGER NOT NULL DEFAULT 0');
  }

  close(): void {
    this.db.close();
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  // --- payments ---------------------------------------------------------------

  seedTransfer(t: TransferRow): void {
    this.transaction(() => {
      this.db
        .prepare(
          `INSERT OR REPLACE INTO transfers VALUES
        (@transferId, @ledgerStatus, @replicaStatus, @replicaLagMs, @replicaNote, @processorAck,
         @amountMinor, @currency, @destination, @seededAt)`,
        )
        .run(t);
      this.db.prepare('DELETE FROM reissues WHERE transfer_id = ?').run(t.transferId);
      this.db.prepare('DELETE FROM fences WHERE subject = ?').run(t.transferId);
    });
  }

  getTransfer(transferId: string): TransferRow | undefined {
    return this.db.prepare(`SELECT ${TRANSFER_COLS} FROM transfers WHERE transfer_id = ?`).get(transferId) as TransferRow | undefined;
  }

  getReissueByKey(idempotencyKey: string): Reissue | undefined {
    return this.db.prepare(`SELECT ${REISSUE_COLS} FROM reissues WHERE idempotency_key = ?`).get(idempotencyKey) as Reissue | undefined;
  }
  getReissueByTransfer(transferId: string): Reissue | undefined {
    return this.db.prepare(`SELECT ${REISSUE_COLS} FROM reissues WHERE transfer_id = ? ORDER BY created_at LIMIT 1`).get(transferId) as Reissue | undefined;
  }

  /**
   * Fences a key: from now on a request under it sent before `before` (the sender's stamp) is
   * refused, so a request still on its way when its sender read it back can no longer commit.
   * A fence only ever moves later.
   */
  fence(idempotencyKey: string, subject: string, before: number): void {
    this.db
      .prepare(
        `INSERT INTO fences VALUES (?, ?, ?)
         ON CONFLICT(idempotency_key) DO UPDATE SET fenced_before = MAX(fenced_before, excluded.fenced_before)`,
      )
      .run(idempotencyKey, subject, before);
  }
  fencedBefore(idempotencyKey: string): number | undefined {
    const row = this.db.prepare('SELECT fenced_before AS before FROM fences WHERE idempotency_key = ?').get(idempotencyKey) as { before: number } | undefined;
    return row?.before;
  }

  insertReissue(r: Reissue & { reason: string }): void {
    this.db
      .prepare(
        `INSERT INTO reissues VALUES (@reissueId, @idempotencyKey, @transferId, @destination,
      @amountMinor, @currency, @reason, @createdAt)`,
      )
      .run(r);
  }

  // --- incidents --------------------------------------------------------------

  seedIncident(caseId: string, services: ServiceRow[]): void {
    this.transaction(() => {
      this.db.prepare('DELETE FROM services WHERE case_id = ?').run(caseId);
      this.db.prepare('DELETE FROM incident_effects WHERE case_id = ?').run(caseId);
      this.db.prepare('DELETE FROM fences WHERE subject = ?').run(caseId);
      const insert = this.db.prepare(`INSERT INTO services (case_id, service, fault, current_version, previous_version,
        deployed_at, hostile_log_line, log_pad_bytes, stubborn) VALUES (@caseId, @service, @fault, @currentVersion,
        @previousVersion, @deployedAt, @hostileLogLine, @logPadBytes, @stubborn)`);
      for (const s of services) insert.run(s);
    });
  }

  listServices(caseId: string): ServiceRow[] {
    return this.db.prepare(`SELECT ${SERVICE_COLS} FROM services WHERE case_id = ? ORDER BY service`).all(caseId) as ServiceRow[];
  }

  /** Every service of every case, for the Prometheus export (domains/world/metrics.ts). */
  listAllServices(): ServiceRow[] {
    return this.db.prepare(`SELECT ${SERVICE_COLS} FROM services ORDER BY case_id, service`).all() as ServiceRow[];
  }

  getService(caseId: string, service: string): ServiceRow | undefined {
    return this.db.prepare(`SELECT ${SERVICE_COLS} FROM services WHERE case_id = ? AND service = ?`).get(caseId, service) as ServiceRow | undefined;
  }

  updateService(s: ServiceRow): void {
    this.db
      .prepare(
        `UPDATE services SET fault = @fault, current_version = @currentVersion,
      previous_version = @previousVersion, deployed_at = @deployedAt WHERE case_id = @caseId AND service = @service`,
      )
      .run(s);
  }

  getIncidentEffectByKey(idempotencyKey: string): IncidentEffect | undefined {
    return this.db.prepare(`SELECT ${EFFECT_COLS} FROM incident_effects WHERE idempotency_key = ?`).get(idempotencyKey) as IncidentEffect | undefined;
  }

  lastIncidentEffect(caseId: string, service: string): IncidentEffect | undefined {
    return this.db
      .prepare(
        `SELECT ${EFFECT_COLS} FROM incident_effects WHERE case_id = ? AND service = ?
      ORDER BY applied_at DESC, rowid DESC LIMIT 1`,
      )
      .get(caseId, service) as IncidentEffect | undefined;
  }

  insertIncidentEffect(e: IncidentEffect): void {
    this.db
      .prepare(
        `INSERT INTO incident_effects VALUES (@effectId, @idempotencyKey, @caseId, @kind, @service,
      @toVersion, @appliedAt)`,
      )
      .run(e);
  }

  // --- approvals spent here -----------------------------------------------------

  /** The first request decided under a signed statement (by its fingerprint): its key, and whether it was applied or refused. */
  statementUse(fingerprint: string): StatementUse | undefined {
    return this.db
      .prepare('SELECT fingerprint, idempotency_key AS idempotencyKey, decision, op, at FROM statement_uses WHERE fingerprint = ?')
      .get(fingerprint) as StatementUse | undefined;
  }

  /** Records the statements a decided request went out under; the first decision under each stands. */
  recordStatementUses(fingerprints: readonly string[], use: Omit<StatementUse, 'fingerprint' | 'at'>): void {
    const insert = this.db.prepare('INSERT OR IGNORE INTO statement_uses VALUES (?, ?, ?, ?, ?)');
    const at = new Date().toISOString();
    this.transaction(() => {
      for (const fingerprint of fingerprints) insert.run(fingerprint, use.idempotencyKey, use.decision, use.op, at);
    });
  }

  // --- ground truth for tests ---------------------------------------------------

  startCall(c: NewCall): number {
    const info = this.db
      .prepare(
        `INSERT INTO calls (at, op, key, idempotency_key, params, body, outcome)
      VALUES (?, ?, ?, ?, ?, ?, 'pending')`,
      )
      .run(new Date().toISOString(), c.op, c.key, c.idempotencyKey, JSON.stringify(c.params), c.body === undefined ? null : JSON.stringify(c.body));
    return Number(info.lastInsertRowid);
  }

  setCallOutcome(seq: number, outcome: CallOutcome, deduplicated?: boolean): void {
    this.db.prepare('UPDATE calls SET outcome = ?, deduplicated = ? WHERE seq = ?').run(outcome, deduplicated === undefined ? null : Number(deduplicated), seq);
  }

  // A filter key matches either the subject (transferId/caseId) or the idempotency key.
  listCalls(filter: { key?: string; op?: string }): CallRecord[] {
    const rows = this.db
      .prepare(
        `SELECT seq, at, op, key, idempotency_key AS idempotencyKey, params, body,
      outcome, deduplicated FROM calls WHERE (@key IS NULL OR key = @key OR idempotency_key = @key)
      AND (@op IS NULL OR op = @op) ORDER BY seq`,
      )
      .all({ key: filter.key ?? null, op: filter.op ?? null }) as Array<
      Omit<CallRecord, 'params' | 'body' | 'deduplicated'> & { params: string; body: string | null; deduplicated: number | null }
    >;
    return rows.map(({ deduplicated, ...r }) => ({
      ...r,
      params: JSON.parse(r.params) as Record<string, string>,
      body: r.body === null ? null : (JSON.parse(r.body) as unknown),
      ...(deduplicated === null ? {} : { deduplicated: deduplicated === 1 }),
    }));
  }

  listEffects(filter: { key?: string }): EffectRecord[] {
    const k = { key: filter.key ?? null };
    const where = (subject: string) => `WHERE @key IS NULL OR ${subject} = @key OR idempotency_key = @key`;
    const reissues = this.db.prepare(`SELECT ${REISSUE_COLS}, reason FROM reissues ${where('transfer_id')}`).all(k) as Array<Reissue & { reason: string }>;
    const incidents = this.db.prepare(`SELECT ${EFFECT_COLS} FROM incident_effects ${where('case_id')}`).all(k) as IncidentEffect[];
    const all: EffectRecord[] = [
      ...reissues.map(({ reissueId, transferId, idempotencyKey, createdAt, ...details }) => ({
        kind: 'reissue' as const,
        effectId: reissueId,
        key: transferId,
        idempotencyKey,
        at: createdAt,
        details,
      })),
      ...incidents.map(({ effectId, kind, caseId, idempotencyKey, appliedAt, ...details }) => ({
        kind,
        effectId,
        key: caseId,
        idempotencyKey,
        at: appliedAt,
        details,
      })),
    ];
    return all.sort((a, b) => a.at.localeCompare(b.at));
  }

  // --- faults -------------------------------------------------------------------

  addFault(f: Omit<FaultRow, 'faultId'>): number {
    const info = this.db
      .prepare('INSERT INTO faults (op, key, mode, remaining, delay_ms) VALUES (?, ?, ?, ?, ?)')
      .run(f.op, f.key, f.mode, f.remaining, f.delayMs);
    return Number(info.lastInsertRowid);
  }

  clearFaults(): void {
    this.db.prepare('DELETE FROM faults').run();
  }

  // Oldest matching fault wins and is charged one use, atomically, so two
  // concurrent requests can never both consume a `times: 1` fault.
  takeFault(op: Op, keys: Array<string | null>): FaultRow | undefined {
    return this.transaction(() => {
      const candidates = this.db
        .prepare(
          `SELECT fault_id AS faultId, op, key, mode, remaining, delay_ms AS delayMs
        FROM faults WHERE op = ? AND remaining != 0 ORDER BY fault_id`,
        )
        .all(op) as FaultRow[];
      const hit = candidates.find((f) => f.key === null || keys.includes(f.key));
      if (hit && hit.remaining > 0) this.db.prepare('UPDATE faults SET remaining = remaining - 1 WHERE fault_id = ?').run(hit.faultId);
      return hit;
    });
  }
}
