// One control-plane binary as a child process: its output appended to a log file, its own pid
// known, stopped by that pid (SIGTERM, then SIGKILL), and never outliving the process that
// started it. A small sh sits between us and the binary holding the binary's pid; when its
// stdin closes (our stop, or our process dying, even by SIGKILL, so a killed test leaves no
// apiserver behind) it ends the binary by that pid. It exits when the binary does, so a binary
// that dies early is seen at once instead of waited on.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { Readable } from 'node:stream';

export interface Child {
  name: string;
  /** The binary's own pid (not the watchdog's). */
  pid: number;
  logFile: string;
  /** Set once the binary has exited: its exit code, or the signal's name. */
  exit(): string | undefined;
  /** SIGTERM by pid, SIGKILL after `graceMs`; resolves once the binary has exited. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL by pid (a crash, not a shutdown); resolves once the binary has exited. */
  kill(): Promise<void>;
}

export class ChildStartError extends Error {
  constructor(
    readonly component: string,
    message: string,
    readonly logFile: string,
  ) {
    super(`${component}: ${message} (its output is in ${logFile})`);
    this.name = 'ChildStartError';
  }
}

const KILL_AFTER_S = 10;

// fd 3 tells us the binary's pid; fd 4 keeps our stdin, the lifeline, away from the binary.
const WATCHDOG = `exec 4<&0
"$0" "$@" </dev/null 3>&- 4<&- &
child=$!
echo "$child" >&3
exec 3>&-
( read _ <&4; kill -TERM "$child" 2>/dev/null; sleep ${KILL_AFTER_S}; kill -KILL "$child" 2>/dev/null ) &
reader=$!
exec 4<&-
wait "$child"
status=$?
kill "$reader" 2>/dev/null
exit "$status"`;

export interface StartChildOptions {
  name: string;
  command: string;
  args: string[];
  logFile: string;
  env?: NodeJS.ProcessEnv;
}

export async function startChild(options: StartChildOptions): Promise<Child> {
  const fd = openSync(options.logFile, 'a');
  let watchdog;
  try {
    // Its own process group, so a Ctrl-C at the terminal reaches us, and we stop it in order.
    watchdog = spawn('sh', ['-c', WATCHDOG, options.command, ...options.args], {
      env: options.env ?? process.env,
      detached: true,
      stdio: ['pipe', fd, fd, 'pipe'],
    });
  } finally {
    closeSync(fd);
  }
  let exitText: string | undefined;
  const exited = new Promise<void>((resolve) => {
    watchdog.once('exit', (code, signal) => {
      exitText = code !== null ? `exit code ${code}` : `signal ${signal}`;
      resolve();
    });
  });
  watchdog.stdin?.on('error', () => {});
  const pid = await new Promise<number>((resolve, reject) => {
    let text = '';
    const pidPipe = watchdog.stdio[3] as Readable;
    pidPipe.setEncoding('utf8');
    pidPipe.on('data', (chunk: string) => (text += chunk));
    pidPipe.on('end', () => (/^\d+\s*$/.test(text) ? resolve(Number(text)) : reject(new Error(`no pid from the watchdog (${text || 'nothing'})`))));
    watchdog.once('error', reject);
  }).catch((err: unknown) => {
    watchdog.stdin?.destroy();
    throw new ChildStartError(options.name, `could not start ${options.command}: ${err instanceof Error ? err.message : String(err)}`, options.logFile);
  });

  let stopping: Promise<void> | undefined;
  const stop = (graceMs = 15_000): Promise<void> =>
    (stopping ??= (async () => {
      if (exitText === undefined) {
        signal(pid, 'SIGTERM');
        const timer = setTimeout(() => signal(pid, 'SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      watchdog.stdin?.destroy();
    })());
  const kill = async (): Promise<void> => {
    if (exitText === undefined) signal(pid, 'SIGKILL');
    await stop();
  };
  return { name: options.name, pid, logFile: options.logFile, exit: () => exitText, stop, kill };
}

/** Signals our own child's pid; one that has just exited is not an error. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone already
  }
}
