import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { allSearchAttributeKeys } from '../workflows/search-attributes.js';
import { resolveTemporalCli } from './cli.js';
import { acquireDbLock, DevDatabaseHeldError } from './db-lock.js';
import type { Log } from './log.js';
import { freePort, listensOn } from './ports.js';
import { drained, StartUpOutput } from './start-up-output.js';

export interface DevServerOptions {
  /** gRPC frontend port; a free one when omitted. */
  port?: number;
  /** Web UI port; with `headless` there is none. */
  uiPort?: number;
  headless?: boolean;
  /**
   * SQLite file that holds the server's state; in-memory (lost on exit) when omitted. Locked
   * while the server runs (temporal-dev/db-lock.ts): a second start on it is DevDatabaseHeldError.
   */
  dbFile?: string;
  /** Extra `--dynamic-config-value KEY=VALUE` pairs, e.g. to lower history limits in a test. */
  dynamicConfig?: Record<string, string | number | boolean>;
  log: Log;
}

export interface DevServer {
  address: string;
  namespace: string;
  uiUrl: string | undefined;
  /** Our child's pid (undefined when the SDK runs the server for us). */
  pid: number | undefined;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';

/**
 * The dev server did not come up: it exited before it answered, or what answered on its port was
 * another process. `takenPorts` are the ports it found held by others.
 */
export class DevServerStartError extends Error {
  constructor(
    readonly stderr: string,
    readonly takenPorts: ReadonlySet<number>,
    why = 'exited during start-up',
  ) {
    super(`Temporal dev server ${why}:\n${stderr}`);
    this.name = 'DevServerStartError';
  }
}

/** How many times a start whose port was taken from under it is tried, in all. */
const START_ATTEMPTS = 3;

/**
 * Starts `temporal server start-dev` on loopback and resolves once the frontend answers. The CLI
 * chooses the server's inner ports itself (history, matching, worker, HTTP), and we choose the
 * frontend's when none is given: each is free when chosen but may be taken before the server
 * binds it (test files start servers side by side). Such a start is tried again, on new ports,
 * unless a port taken is one the caller fixed: that one will not come free by trying.
 */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const fixed = new Set([options.port, options.uiPort].filter((port) => port !== undefined));
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDevServerOnce(options);
    } catch (err) {
      const taken = err instanceof DevServerStartError ? [...err.takenPorts] : [];
      const retry = taken.length > 0 && !taken.some((port) => fixed.has(port));
      if (!retry || attempt >= START_ATTEMPTS) throw err;
      options.log(`port ${taken.join(', ')} was taken before the dev server bound it; starting again (attempt ${attempt + 1})`);
    }
  }
}

async function startDevServerOnce(options: DevServerOptions): Promise<DevServer> {
  const { log } = options;
  const cli = resolveTemporalCli(log);
  const port = options.port ?? (await freePort());
  const uiPort = options.headless ? undefined : (options.uiPort ?? (await freePort()));
  const address = `${HOST}:${port}`;
  const uiUrl = uiPort === undefined ? undefined : `http://${HOST}:${uiPort}`;
  let lock: { update(patch: { serverPid: number }): void; release(): void } | undefined;
  if (options.dbFile) {
    mkdirSync(dirname(options.dbFile), { recursive: true });
    const taken = acquireDbLock(options.dbFile, { address, namespace: 'default', ...(uiUrl ? { uiUrl } : {}) });
    if (!taken.acquired) throw new DevDatabaseHeldError(options.dbFile, taken.holder);
    lock = taken;
  }
  try {
    const server = cli.kind === 'sdk-download' ? await startWithSdk(options, port, uiPort) : await startWithCli(cli.path, options, port, uiPort, lock);
    if (!lock) return server;
    const held = lock;
    return {
      ...server,
      stop: async () => {
        await server.stop();
        held.release();
      },
    };
  } catch (err) {
    lock?.release();
    throw err;
  }
}

async function startWithCli(
  cliPath: string,
  options: DevServerOptions,
  port: number,
  uiPort: number | undefined,
  lock: { update(patch: { serverPid: number }): void } | undefined,
): Promise<DevServer> {
  const { log } = options;

  const args = ['server', 'start-dev', '--ip', HOST, '--port', String(port), '--log-level', 'error', '--namespace', 'default'];
  args.push(...(uiPort === undefined ? ['--headless'] : ['--ui-port', String(uiPort)]));
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  for (const key of allSearchAttributeKeys) args.push('--search-attribute', `${key.name}=Keyword`);
  for (const [key, value] of Object.entries(options.dynamicConfig ?? {})) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }

  const child = spawn(cliPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  if (child.pid !== undefined) lock?.update({ serverPid: child.pid });
  const stderr = new StartUpOutput();
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => stderr.add(chunk));
  const address = `${HOST}:${port}`;
  log(`starting dev server (pid ${child.pid}) on ${address}${options.dbFile ? ` with ${options.dbFile}` : ''}`);

  const removeExitHook = killOnParentExit(child);
  const stop = async (): Promise<void> => {
    removeExitHook();
    await stopChild(child);
  };
  try {
    await waitUntilServing(port, child, stderr);
  } catch (err) {
    await stop();
    throw err;
  }
  const uiUrl = uiPort === undefined ? undefined : `http://${HOST}:${uiPort}`;
  log(`dev server ready at ${address}${uiUrl ? `, Web UI at ${uiUrl}` : ''}`);
  return { address, namespace: 'default', uiUrl, pid: child.pid, stop };
}

async function startWithSdk(options: DevServerOptions, port: number, uiPort: number | undefined): Promise<DevServer> {
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ip: HOST,
      port,
      ui: uiPort !== undefined,
      uiPort,
      dbFilename: options.dbFile,
      searchAttributes: allSearchAttributeKeys,
      extraArgs: ['--log-level', 'error'],
    },
  });
  const address = `${HOST}:${port}`;
  options.log(`dev server ready at ${address} (downloaded by the SDK)`);
  return {
    address,
    namespace: env.namespace ?? 'default',
    uiUrl: uiPort === undefined ? undefined : `http://${HOST}:${uiPort}`,
    pid: undefined,
    stop: () => env.teardown(),
  };
}

async function waitUntilServing(port: number, child: ChildProcess, stderr: StartUpOutput): Promise<void> {
  const address = `${HOST}:${port}`;
  const deadline = Date.now() + 60_000;
  let exited = false;
  child.once('exit', () => (exited = true));
  // Once it has exited, stderr is read to its end ('close') so the taken ports are all known; a
  // wrapper script's own child may hold the pipe longer, and is not waited for past a few seconds.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  while (Date.now() < deadline) {
    if (exited) {
      await drained(closed);
      throw new DevServerStartError(stderr.text(), stderr.takenPorts);
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.getSystemInfo({});
      } finally {
        await connection.close();
      }
    } catch {
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    // What answered may be another server on the port we chose, which ours then fails to bind:
    // only our child's own socket counts as it serving (a start on a new port follows).
    if (child.pid !== undefined && listensOn(child.pid, port) === false) {
      throw new DevServerStartError(stderr.text(), new Set([port]), `was not what answered on port ${port}: another process holds it`);
    }
    return;
  }
  throw new Error(`Temporal dev server did not answer on ${address} within 60s:\n${stderr.text()}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** If our process ends without calling stop(), take the server down with us: no orphans. */
function killOnParentExit(child: ChildProcess): () => void {
  const onExit = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', onExit);
  return () => process.removeListener('exit', onExit);
}
