// `npm run demo` while `npm run dev` runs must not start a second Temporal server on the same
// SQLite file (issue 27). The first server's starter locks the file (temporal-dev/db-lock.ts);
// the demo's local stack finds that server through the lock and uses it, a second
// `npm run dev:server` on the file refuses in one line, and a lock whose processes are gone is
// taken over. Real processes: a dev server started by `npm run dev:server` in a child process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack } from '../../demo/local-stack.js';
import { lockFileFor, lockHolder } from '../../temporal-dev/db-lock.js';
import { freePort } from '../../temporal-dev/ports.js';
import { quietLog } from '../../temporal-dev/log.js';
import { projectRoot } from '../../temporal-dev/paths.js';
import { useTemporal } from '../../temporal-dev/target.js';
import { waitUntil } from '../../client/wait.js';

const scratch = mkdtempSync(join(tmpdir(), 'dev-db-lock-'));
const dbFile = join(scratch, 'dev.sqlite');
const saved = process.env.TEMPORAL_ADDRESS;
interface DevServerProcess {
  child: ChildProcess;
  address: string;
  exited: Promise<number | null>;
  stderr: () => string;
}
let holder: DevServerProcess | undefined;

/** `npm run dev:server` on a file, as a person would start it: its own process. */
async function devServer(db: string): Promise<DevServerProcess> {
  const port = await freePort();
  const env = { ...process.env };
  delete env.TEMPORAL_ADDRESS;
  const child = spawn(process.execPath, ['--import', 'tsx', 'temporal-dev/main.ts', '--db', db, '--headless', '--port', String(port), '--ui-port', '1'], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, address: `127.0.0.1:${port}`, exited, stderr: () => stderr };
}

beforeAll(async () => {
  delete process.env.TEMPORAL_ADDRESS;
  const started = await devServer(dbFile);
  holder = started;
  let code: number | null | undefined;
  void started.exited.then((c) => (code = c));
  await waitUntil(
    async () => {
      if (code !== undefined) throw new Error(`dev:server exited ${code}: ${started.stderr()}`);
      return lockHolder(dbFile)?.serverPid !== undefined && (await answers(started.address)) ? true : undefined;
    },
    'the holder dev server to answer',
    { timeoutMs: 90_000, everyMs: 200 },
  );
});

afterAll(async () => {
  if (holder && holder.child.exitCode === null) {
    holder.child.kill('SIGTERM');
    await holder.exited;
  }
  if (saved === undefined) delete process.env.TEMPORAL_ADDRESS;
  else process.env.TEMPORAL_ADDRESS = saved;
  rmSync(scratch, { recursive: true, force: true });
});

async function answers(address: string): Promise<boolean> {
  const { Connection } = await import('@temporalio/client');
  try {
    const connection = await Connection.connect({ address, connectTimeout: 1_000 });
    try {
      await connection.workflowService.getSystemInfo({});
      return true;
    } finally {
      await connection.close();
    }
  } catch {
    return false;
  }
}

describe('one dev server per database file', () => {
  it("the demo's local stack uses the server that holds the file instead of starting a second one", async () => {
    const lock = lockHolder(dbFile);
    expect(lock).toMatchObject({ pid: holder?.child.pid, address: holder?.address });
    const stack = await startLocalStack({
      server: { headless: true, dbFile, log: quietLog },
      worldDb: join(scratch, 'world.sqlite'),
      blobDir: join(scratch, 'blobs'),
      taskQueue: 'lock-test',
    });
    try {
      expect(stack.target.startedHere).toBe(false);
      expect(stack.target.address).toBe(holder?.address);
      // Still the holder's lock: nobody else started on the file.
      expect(lockHolder(dbFile)?.pid).toBe(holder?.child.pid);
      // The demo's worker runs against it, then stops (as the demo's runUntil does).
      await stack.worker.runUntil(stack.client.workflowService.getSystemInfo({}));
    } finally {
      await stack.close();
    }
    // Closing the demo's stack leaves the holder's server up.
    expect(await answers(holder?.address ?? '')).toBe(true);
  });

  it('a second `npm run dev:server` on the file exits 1 with one line naming the holder', async () => {
    const second = await devServer(dbFile);
    expect(await second.exited).toBe(1);
    const lines = second
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('dev:server: '));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${dbFile} is in use by the dev server at ${holder?.address} (started by pid ${holder?.child.pid})`);
    expect(second.stderr()).not.toMatch(/\n\s+at /);
  });

  it('a stale lock (its processes gone) is taken over, and released when the server stops', async () => {
    const other = join(scratch, 'stale.sqlite');
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(gone.stdout);
    writeFileSync(lockFileFor(other), JSON.stringify({ pid: deadPid, serverPid: deadPid, address: '127.0.0.1:1', namespace: 'default' }));
    expect(lockHolder(other)).toBeUndefined();
    const target = await useTemporal({ headless: true, dbFile: other, log: quietLog });
    try {
      expect(target.startedHere).toBe(true);
      expect((JSON.parse(readFileSync(lockFileFor(other), 'utf8')) as { pid: number }).pid).toBe(process.pid);
    } finally {
      await target.stop();
    }
    expect(existsSync(lockFileFor(other))).toBe(false);
  });
});
