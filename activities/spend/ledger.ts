// Spend held outside any one run: what each team spent each day, shared by every model call of
// every run the workers on this host make. A run cannot hold it (a team's day spans many runs,
// and a run's state is its own), so the model activity reads and charges it around each call.
// It is a SQLite file under the worker's data directory: one small table, atomic increments,
// and WAL so the model workers of one host can share it. (Temporal itself could hold it, as a
// workflow per team and day charged by Update; that costs history events on every model call
// and an extra round trip, which a per-host file does not. Workers on several hosts need a
// shared store: implement SpendLedger over it.)
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';

/** Where the teams' daily spend is held (a SQLite file by default); implement it for workers spread over hosts. */
export interface SpendLedger {
  /** Micros the team has spent on `day` (UTC `YYYY-MM-DD`). */
  spent(team: string, day: string): Promise<number>;
  /** Adds a call's cost and returns the new total for that team and day. */
  charge(team: string, day: string, micros: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * Opens (creating if need be) the ledger file. better-sqlite3 is loaded only here, so a worker
 * without team caps never needs it.
 */
export async function openSqliteLedger(path: string): Promise<SpendLedger> {
  const { default: Database } = (await import('better-sqlite3')) as { default: typeof BetterSqlite3 };
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  // Another worker process may hold the write lock for a moment: wait for it rather than fail the call.
  db.pragma('busy_timeout = 5000');
  db.exec('CREATE TABLE IF NOT EXISTS team_spend (team TEXT NOT NULL, day TEXT NOT NULL, micros INTEGER NOT NULL, PRIMARY KEY (team, day))');
  const read = db.prepare<[string, string], { micros: number }>('SELECT micros FROM team_spend WHERE team = ? AND day = ?');
  const add = db.prepare<[string, string, number], { micros: number }>(
    'INSERT INTO team_spend (team, day, micros) VALUES (?, ?, ?) ON CONFLICT (team, day) DO UPDATE SET micros = micros + excluded.micros RETURNING micros',
  );
  return {
    spent: (team, day) => Promise.resolve(read.get(team, day)?.micros ?? 0),
    charge: (team, day, micros) => Promise.resolve((add.get(team, day, Math.max(0, Math.ceil(micros))) as { micros: number }).micros),
    close: () => Promise.resolve(void db.close()),
  };
}

/** The UTC day a call is charged to. */
export function spendDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}
