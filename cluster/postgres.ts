// The cluster's SQL store: Debian's PostgreSQL, a data folder of our own on a free loopback
// port, never the system's instance. PostgreSQL refuses to run as root, so when we are root it
// runs as the `postgres` system user (the Debian package creates it) and owns its folder.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DB_USER, HOST } from './config.js';
import { startProcess, type RunAs } from './processes.js';
import type { Log } from '../temporal-dev/log.js';

export class PostgresNotFoundError extends Error {
  constructor(detail: string) {
    super(`PostgreSQL is needed for the cluster: ${detail}. Install it (apt-get install postgresql) or set PG_BIN to the folder with initdb and postgres.`);
    this.name = 'PostgresNotFoundError';
  }
}

/** The folder with initdb and postgres: PG_BIN, else the newest /usr/lib/postgresql/<version>/bin. */
export function postgresBin(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PG_BIN) {
    if (!existsSync(join(env.PG_BIN, 'postgres'))) throw new PostgresNotFoundError(`PG_BIN=${env.PG_BIN} has no postgres`);
    return env.PG_BIN;
  }
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new PostgresNotFoundError(`no ${root}/<version>/bin/postgres`);
  return join(root, newest, 'bin');
}

/** Who runs PostgreSQL: ourselves, or the `postgres` user when we are root. */
export function postgresUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined) throw new PostgresNotFoundError('running as root, and there is no `postgres` user to run it as');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Creates the data folder with initdb unless it already holds a database. */
export function initDataDir(pgDir: string, log: Log): void {
  if (existsSync(join(pgDir, 'PG_VERSION'))) return;
  const runAs = postgresUser();
  mkdirSync(pgDir, { mode: 0o700 });
  if (runAs) chownSync(pgDir, runAs.uid, runAs.gid);
  log(`initdb ${pgDir}`);
  // Trust on loopback: a throwaway database for tests on this machine, reachable only from it.
  execFileSync(join(postgresBin(), 'initdb'), ['-D', pgDir, '-U', DB_USER, '--auth=trust', '--encoding=UTF8', '--no-instructions'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
  });
}

/** Starts PostgreSQL on `port` and resolves with its pid once it accepts connections. */
export async function startPostgres(pgDir: string, port: number, logFile: string): Promise<number> {
  const bin = postgresBin();
  const runAs = postgresUser();
  const pid = await startProcess({
    command: join(bin, 'postgres'),
    args: [
      '-D',
      pgDir,
      '-p',
      String(port),
      '-c',
      `listen_addresses=${HOST}`,
      // No Unix socket: the system's instance owns /var/run/postgresql, and TCP is all we use.
      '-c',
      'unix_socket_directories=',
      // Four services, each with a pool of 20 (history and matching hold theirs open).
      '-c',
      'max_connections=200',
      // The database is never the process that gets killed here; the services are. Durability
      // against a power cut buys nothing on a test cluster and costs the shared disk a lot.
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
    ],
    logFile,
    cwd: pgDir,
    ...(runAs ? { runAs } : {}),
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      execFileSync(join(bin, 'pg_isready'), ['-h', HOST, '-p', String(port), '-U', DB_USER, '-q'], { stdio: 'ignore' });
      return pid;
    } catch {
      if (Date.now() > deadline) throw new Error(`PostgreSQL did not accept connections on ${HOST}:${port} within 60 s (see ${logFile})`);
      await sleep(200);
    }
  }
}
