// Runs one monitoring binary (Prometheus, Alertmanager) as a child process on loopback: waits until
// its HTTP readiness endpoint answers, keeps the tail of its output for error messages, and stops
// it by its own pid (SIGTERM, then SIGKILL), also when our process dies first. Nothing here knows
// which binary it runs. These binaries take no port 0, so the port is chosen here, free when
// chosen; another process can take it before the binary binds it, and then it starts again on a
// new one (a loaded host widens that window; the Temporal dev server lost a start to it in CI),
// also when the other process answers the readiness check in its place.
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort, listensOn } from '../temporal-dev/ports.js';
import { drained, StartUpOutput } from '../temporal-dev/start-up-output.js';

export interface Supervised {
  pid: number;
  /** The base URL it serves on, e.g. http://127.0.0.1:41234. */
  url: string;
  /** The tail of what it wrote to stdout and stderr. */
  output(): string;
  stop(): Promise<void>;
}

export interface SuperviseOptions {
  name: string;
  binary: string;
  /** Its arguments, given the loopback port it is to serve on. */
  args: (port: number) => string[];
  /** The path that answers 200 once it serves, e.g. /-/ready. */
  readyPath: string;
  readyTimeoutMs?: number;
}

const KILL_AFTER_MS = 5_000;
const OUTPUT_KEEP_CHARS = 8_000;
/** Starts in all when each finds its port taken. */
const START_ATTEMPTS = 3;

/** The binary did not come up; `portTaken` when it said another process held its port. */
export class SupervisedStartError extends Error {
  constructor(
    message: string,
    readonly portTaken: boolean,
  ) {
    super(message);
    this.name = 'SupervisedStartError';
  }
}

/**
 * A small sh between us and the binary, holding the binary's pid: it stops the binary (SIGTERM by
 * that pid, SIGKILL after 5 s) when its stdin closes, which happens when we stop it and also when
 * our process dies without stopping it (a killed test), so no Prometheus outlives its owner. It
 * exits when the binary does, so an early death is seen at once.
 */
const WATCHDOG = `exec 3<&0
"$0" "$@" </dev/null 3<&- &
child=$!
echo "SUPERVISED_PID $child" >&2
( read _ <&3; kill -TERM "$child" 2>/dev/null; sleep ${KILL_AFTER_MS / 1000}; kill -KILL "$child" 2>/dev/null ) &
reader=$!
wait "$child"
status=$?
kill "$reader" 2>/dev/null
exit "$status"`;

export async function supervise(options: SuperviseOptions): Promise<Supervised> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await superviseOn(await freePort(), options);
    } catch (err) {
      if (!(err instanceof SupervisedStartError && err.portTaken) || attempt >= START_ATTEMPTS) throw err;
    }
  }
}

async function superviseOn(port: number, options: SuperviseOptions): Promise<Supervised> {
  const url = `http://127.0.0.1:${port}`;
  const child = spawn('sh', ['-c', WATCHDOG, options.binary, ...options.args(port)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let pid = -1;
  // What each stream said while it started, for a failure's message and its taken port: kept from
  // both ends and scanned as it arrives, not read from the tail above, which a long last word fills.
  const started = { stdout: new StartUpOutput(), stderr: new StartUpOutput() };
  const keep = (stream: keyof typeof started) => (chunk: string) => {
    const found = /^SUPERVISED_PID (\d+)$/m.exec(chunk);
    if (found && pid === -1) pid = Number(found[1]);
    output = (output + chunk).slice(-OUTPUT_KEEP_CHARS);
    started[stream].add(chunk);
  };
  child.stdout?.setEncoding('utf8').on('data', keep('stdout'));
  child.stderr?.setEncoding('utf8').on('data', keep('stderr'));
  child.stdin?.on('error', () => {});
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));

  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= stopChild(child, exited));

  const ready = await waitReady(url, options, child, exited, spawnError);
  if (ready !== undefined) {
    // A binary that exited by itself has its last words in the pipes still: read them to the end
    // ('close'), for they say whether its port was taken, but not past DRAIN_MS, for a process it
    // started may hold them open. (One we stop may leave the watchdog's sleep holding the pipes,
    // so that case does not wait for them.)
    const exitedByItself = child.exitCode !== null || child.signalCode !== null;
    if (exitedByItself) await drained(closed);
    await stop();
    const said = [started.stderr.text(), started.stdout.text()].filter(Boolean).join('\n--- stdout ---\n');
    const portTaken = started.stderr.takenPorts.size + started.stdout.takenPorts.size > 0;
    throw new SupervisedStartError(`${options.name} ${ready}\n--- ${options.name} output ---\n${said || '(empty)'}`, portTaken);
  }
  // What answered may be whoever took the port before the binary bound it (then the binary
  // itself fails, or waits): only the binary's own socket counts as it serving.
  if (pid !== -1 && listensOn(pid, port) === false) {
    await stop();
    throw new SupervisedStartError(`${options.name} was not what answered on port ${port}: another process holds it`, true);
  }
  return { pid, url, output: () => output, stop };
}

/** Undefined once it answers, else why it never did. */
async function waitReady(
  url: string,
  options: SuperviseOptions,
  child: ChildProcess,
  exited: Promise<void>,
  spawnError: Promise<Error>,
): Promise<string | undefined> {
  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  let failed: string | undefined;
  void exited.then(() => (failed ??= `exited before it was ready (code ${child.exitCode}, signal ${child.signalCode})`));
  void spawnError.then((err) => (failed ??= `failed to start: ${err.message}`));
  while (Date.now() < deadline) {
    if (failed !== undefined) return failed;
    try {
      const res = await fetch(`${url}${options.readyPath}`, { signal: AbortSignal.timeout(1_000) });
      if (res.ok) return undefined;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return failed ?? `did not answer ${options.readyPath} within ${options.readyTimeoutMs ?? 30_000}ms`;
}

/** Closing the watchdog's stdin stops the binary by its pid; the watchdog exits once it has. */
async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  child.stdin?.end();
  await exited;
}
