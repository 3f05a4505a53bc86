// Runs the world as its own OS process, the way tests and the crash harness
// need it: a separate pid that survives (or not) independently of workers.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface RunningWorld {
  url: string;
  pid: number;
  dbPath: string;
  /** SIGTERM, then SIGKILL if it has not exited 5 s later; says which ended it (already gone counts as exited). */
  stop(): Promise<'exited' | 'killed'>;
}

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
// `--import tsx` resolves from the child's cwd, so run it from the project root.
const PROJECT_ROOT = join(dirname(MAIN), '..', '..');
// A loaded 2-core CI host can take longer than 20 s to start a Node process that loads SQLite.
const READY_TIMEOUT_MS = 60_000;
const KILL_AFTER_MS = 5_000;
const STDERR_KEEP_CHARS = 8_000;

export async function startWorld(options: { dbPath?: string; port?: number } = {}): Promise<RunningWorld> {
  const tempDir = options.dbPath === undefined ? mkdtempSync(join(tmpdir(), 'world-')) : undefined;
  const dbPath = options.dbPath ?? join(tempDir ?? '', 'world.db');
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--port', String(options.port ?? 0), '--db', dbPath, '--exit-on-stdin-close'], {
    cwd: PROJECT_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });

  // Keep draining both pipes for the child's whole life; a full pipe would
  // block its writes. Only the tail of stderr is kept, for error messages.
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEEP_CHARS);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const cleanupTemp = () => {
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  };
  let stopping: Promise<'exited' | 'killed'> | undefined;
  const stop = (): Promise<'exited' | 'killed'> => {
    stopping ??= (async () => {
      let killed = false;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => {
          killed = true;
          child.kill('SIGKILL');
        }, KILL_AFTER_MS);
        await exited;
        clearTimeout(timer);
      }
      cleanupTemp();
      return killed ? 'killed' : 'exited';
    })();
    return stopping;
  };

  try {
    const url = await waitForReady(child, exited, () => stderr);
    return { url, pid: child.pid ?? -1, dbPath, stop };
  } catch (err) {
    // A child that never spawned has no pid and never emits 'exit'.
    if (child.pid !== undefined) {
      child.kill('SIGKILL');
      await exited;
    }
    cleanupTemp();
    throw err;
  }
}

function waitForReady(child: ReturnType<typeof spawn>, exited: Promise<void>, stderr: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`world process ${why}\n--- world stderr ---\n${stderr() || '(empty)'}`));
    };
    const timer = setTimeout(() => fail(`did not print WORLD_READY within ${READY_TIMEOUT_MS}ms`), READY_TIMEOUT_MS);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      const match = /^WORLD_READY (http:\/\/127\.0\.0\.1:\d+)$/m.exec(buffered);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('error', (err) => fail(`failed to spawn: ${err.message}`));
    // Resolving after exit is a no-op, so this only fires for an early death.
    void exited.then(() => fail(`exited before ready (code ${child.exitCode}, signal ${child.signalCode})`));
  });
}
