// One dev server per SQLite file. `npm run demo` and `npm run dev` (and `npm run dev:server`)
// share .temporal/dev.sqlite so runs stay visible between them; two servers writing the same
// file corrupt each other's state. So whoever starts a server on a file first writes a lock
// beside it (`<db>.lock`: its pid, the server's pid and address), and a second process finds
// the server through it and uses that one instead of starting another. A lock whose processes
// are all gone is stale and taken over.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

export const DbLockInfo = z.object({
  /** The process that started the server and will stop it. */
  pid: z.number().int().positive(),
  /** The server's own process, when we spawned one (it can outlive a killed owner). */
  serverPid: z.number().int().positive().optional(),
  address: z.string().min(1),
  namespace: z.string().min(1),
  uiUrl: z.string().optional(),
});
export type DbLockInfo = z.infer<typeof DbLockInfo>;

export function lockFileFor(dbFile: string): string {
  return `${dbFile}.lock`;
}

/** True while the process exists (EPERM: it does, it is just not ours to signal). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live holder of the file's lock, if any; a stale or unreadable lock counts as none. */
export function lockHolder(dbFile: string): DbLockInfo | undefined {
  let raw: string;
  try {
    raw = readFileSync(lockFileFor(dbFile), 'utf8');
  } catch {
    return undefined;
  }
  let parsed;
  try {
    parsed = DbLockInfo.safeParse(JSON.parse(raw));
  } catch {
    return undefined;
  }
  if (!parsed.success) return undefined;
  const info = parsed.data;
  const alive = isAlive(info.pid) || (info.serverPid !== undefined && isAlive(info.serverPid));
  return alive ? info : undefined;
}

export type LockResult = { acquired: true; update(patch: Partial<DbLockInfo>): void; release(): void } | { acquired: false; holder: DbLockInfo };

/** Takes the file's lock for this process, or says who holds it. */
export function acquireDbLock(dbFile: string, info: Omit<DbLockInfo, 'pid'>): LockResult {
  const path = lockFileFor(dbFile);
  let mine: DbLockInfo = { ...info, pid: process.pid };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, `${JSON.stringify(mine)}\n`, { flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = lockHolder(dbFile);
      if (holder) return { acquired: false, holder };
      rmSync(path, { force: true }); // stale: its processes are gone
      continue;
    }
    const ownsIt = (): boolean => {
      try {
        return DbLockInfo.safeParse(JSON.parse(readFileSync(path, 'utf8'))).data?.pid === process.pid;
      } catch {
        return false;
      }
    };
    const release = (): void => {
      process.removeListener('exit', release);
      if (ownsIt()) rmSync(path, { force: true });
    };
    // A process that exits without stopping its server cleanly still leaves no lock behind.
    process.once('exit', release);
    return {
      acquired: true,
      update(patch) {
        mine = { ...mine, ...patch };
        if (ownsIt()) writeFileSync(path, `${JSON.stringify(mine)}\n`);
      },
      release,
    };
  }
  const holder = lockHolder(dbFile);
  if (holder) return { acquired: false, holder };
  throw new Error(`could not take the lock ${path}; remove it if no dev server uses ${dbFile}`);
}

/** A second server on a file another one holds: refused, with who holds it. */
export class DevDatabaseHeldError extends Error {
  constructor(
    readonly dbFile: string,
    readonly holder: DbLockInfo,
    detail = '',
  ) {
    super(
      `${dbFile} is in use by the dev server at ${holder.address} (started by pid ${holder.pid})${detail}; ` +
        `use that server (TEMPORAL_ADDRESS=${holder.address}), stop it, or choose another database file`,
    );
    this.name = 'DevDatabaseHeldError';
  }
}
