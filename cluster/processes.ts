// The cluster's processes as pids: started with their output in a log file, found again by pid
// (from this process or from a later `npm run cluster -- stop`), and stopped by that pid only.
// A pid is trusted only while /proc says it still runs the program we started, so a stale state
// file can never make us signal someone else's process.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface RunAs {
  uid: number;
  gid: number;
}

export interface StartProcessOptions {
  command: string;
  args: string[];
  logFile: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  runAs?: RunAs;
}

export class ProcessStartError extends Error {
  constructor(command: string, cause: unknown) {
    super(`could not start ${command}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'ProcessStartError';
  }
}

/**
 * Starts a process in its own session, detached from ours, with stdout and stderr appended to
 * `logFile`: it outlives a CLI that started it, and a test that wants it gone with itself says
 * so with killOnExit.
 */
export async function startProcess(options: StartProcessOptions): Promise<number> {
  const fd = openSync(options.logFile, 'a');
  try {
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true,
      stdio: ['ignore', fd, fd],
      ...(options.runAs ? { uid: options.runAs.uid, gid: options.runAs.gid } : {}),
    });
    const pid = await new Promise<number>((resolve, reject) => {
      child.once('spawn', () => (child.pid === undefined ? reject(new Error('no pid')) : resolve(child.pid)));
      child.once('error', reject);
    }).catch((err: unknown) => {
      throw new ProcessStartError(options.command, err);
    });
    child.unref();
    return pid;
  } finally {
    closeSync(fd);
  }
}

/** True while `pid` runs a program whose command line contains `program`. */
export function isRunning(pid: number, program: string): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // A zombie has an empty command line: it is not running anything.
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(program);
  } catch {
    return false;
  }
}

/** Sends `signal` to `pid` if it is still ours; waits until it is gone, SIGKILL after `graceMs`. */
export async function stopProcess(pid: number, program: string, signal: NodeJS.Signals, graceMs = 15_000): Promise<void> {
  if (!isRunning(pid, program)) return;
  process.kill(pid, signal);
  const deadline = Date.now() + graceMs;
  while (isRunning(pid, program)) {
    if (signal !== 'SIGKILL' && Date.now() > deadline) {
      process.kill(pid, 'SIGKILL');
      signal = 'SIGKILL';
    }
    await sleep(100);
  }
}

/** SIGKILLs these pids if this process exits first (a test that crashed before its stop()). */
export function killOnExit(pids: () => Array<{ pid: number; program: string }>): () => void {
  const onExit = (): void => {
    for (const { pid, program } of pids()) if (isRunning(pid, program)) process.kill(pid, 'SIGKILL');
  };
  process.once('exit', onExit);
  return () => process.removeListener('exit', onExit);
}
