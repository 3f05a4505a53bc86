// `npm run dev`: everything an operator needs to try the README's commands on a fresh machine, in
// one foreground process. It brings up a Temporal dev server (unless TEMPORAL_ADDRESS or a
// profile names one), the simulated systems of record (the world) and an in-process worker for
// the example domains on the CLI's default task queue, all on fixed loopback ports, so
// `npm run world:seed` and `npm run cli` find them without any environment. On first run it makes
// a local operator key and the approver directory that lists it, so approvals work too.
// One Ctrl-C (SIGINT) or SIGTERM stops the worker, the world and the server it started; exit 0.
//
// Environment: AGENT_DEV_TEMPORAL_PORT (7233), AGENT_DEV_UI_PORT (8233), AGENT_DEV_WORLD_PORT
// (4100), AGENT_DEV_STATE_DIR (the project root: state goes to .temporal/, .world/, .agent/ in
// it), AGENT_TASK_QUEUE (default agents-incidents-payments-synthetic, what the CLI derives from the
// same domains), OPENAI_* (for `--model openai`), TEMPORAL_* to reuse a server.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { NativeConnection, DefaultLogger, Runtime, type Worker } from '@temporalio/worker';
import { openAiAdapterFromEnv } from '../activities/model/openai-config.js';
import { createKeyFile, directoryEntry, generateKey, readKeyFile, type KeyFile } from '../client/sign.js';
import { implementations } from '../domains/implementations.js';
import { WorldClient } from '../domains/world/client.js';
import { startWorld, type RunningWorld } from '../domains/world/process.js';
import { isPortFree } from '../temporal-dev/ports.js';
import { stderrLog } from '../temporal-dev/log.js';
import { projectRoot } from '../temporal-dev/paths.js';
import { configuredServer, useTemporal, type TemporalTarget } from '../temporal-dev/target.js';
import { loadApproverDirectory } from '../worker/approvers.js';
import { taskQueueFor } from '../worker/connection.js';
import { createAgentWorker } from '../worker/create-worker.js';
import type { ApproverDirectory } from '../workflows/trust/directory.js';
import { examplesWorkflowsPath } from './local-stack.js';

const OPERATOR_ID = 'operator@local';
const OPERATOR_ROLES = ['payments-approver', 'sre-lead', 'synthetic-approver'];
const DEFAULT_TEMPORAL_PORT = 7233;
const DEFAULT_WORLD_PORT = 4100;
/** After the first signal: a second one this much later forces the exit. */
const FORCE_AFTER_MS = 2_000;
/** A stop that takes longer than this is stuck: exit anyway (our exit hooks take the children down). */
const STOP_TIMEOUT_MS = 30_000;

// The SDK would stop workers on SIGINT by itself; here one handler stops everything, in order.
Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });

const out = (line = '') => void process.stdout.write(`${line}\n`);
const say = (line: string) => void process.stderr.write(`dev: ${line}\n`);

function oneLine(err: unknown): string {
  const text = (err instanceof Error ? err.message : String(err)).replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return text.length > 600 ? `${text.slice(0, 600)}…` : text;
}

class StartupError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65_535) throw new StartupError(`${name} must be a port number (1-65535), got '${raw}'`, 2);
  return port;
}

/** The queue the CLI (domains/cli.ts, same domains) starts runs on. */
const TASK_QUEUE = taskQueueFor(implementations.map((i) => i.domain.name));

const stateDir = resolve(process.env.AGENT_DEV_STATE_DIR?.trim() || projectRoot);
const paths = {
  temporalDb: join(stateDir, '.temporal', 'dev.sqlite'),
  worldDb: join(stateDir, '.world', 'dev.db'),
  blobDir: join(stateDir, '.world', 'blobs'),
  keyFile: join(stateDir, '.agent', 'operator.key'),
  approversFile: join(stateDir, '.agent', 'approvers.json'),
};

/** How a path reads in an `npm run ...` command, which runs in the project root. */
function shown(path: string): string {
  const rel = relative(projectRoot, path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

/** The operator key and the directory that trusts it, made on first run and never overwritten. */
function ensureOperator(): { key: KeyFile; directory: ApproverDirectory; created: string[]; listed: boolean } {
  mkdirSync(join(stateDir, '.agent'), { recursive: true, mode: 0o700 });
  const created: string[] = [];
  let key: KeyFile;
  if (existsSync(paths.keyFile)) {
    key = readKeyFile(paths.keyFile);
  } else {
    key = generateKey(OPERATOR_ID);
    createKeyFile(paths.keyFile, key);
    created.push(paths.keyFile);
  }
  if (!existsSync(paths.approversFile)) {
    writeFileSync(paths.approversFile, `${JSON.stringify({ approvers: [directoryEntry(key, OPERATOR_ROLES)] }, null, 2)}\n`, { flag: 'wx' });
    created.push(paths.approversFile);
  }
  const directory = loadApproverDirectory(paths.approversFile);
  const listed = directory.approvers.some((a) => a.id === key.id && a.publicKey === key.publicKey);
  return { key, directory, created, listed };
}

// --- lifecycle ------------------------------------------------------------------------------------

const cleanups: Array<{ what: string; run: () => Promise<unknown> }> = [];
let worker: Worker | undefined;
let serverStartedHere = false;
let stopSignal: NodeJS.Signals | undefined;
let stopAt = 0;

/** Tells the worker to stop; one whose run() has not got going yet is told as soon as it has. */
function stopWorker(): void {
  const state = worker?.getState();
  if (state === 'RUNNING') worker?.shutdown();
  else if (state === 'INITIALIZED') setTimeout(stopWorker, 50);
}

function onSignal(signal: NodeJS.Signals): void {
  if (stopSignal) {
    if (Date.now() - stopAt < FORCE_AFTER_MS) return;
    say(`${signal} again: exiting without waiting`);
    process.exit(130);
  }
  stopSignal = signal;
  stopAt = Date.now();
  say(`${signal}: stopping the worker${serverStartedHere ? ', the world and the Temporal server' : ' and the world'}`);
  setTimeout(() => {
    say(`still not stopped after ${STOP_TIMEOUT_MS / 1000}s; exiting anyway`);
    process.exit(1);
  }, STOP_TIMEOUT_MS).unref();
  // Startup steps check stopSignal between them; a worker is told here.
  stopWorker();
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

function checkStop(): void {
  if (stopSignal) throw new StartupError(`stopped by ${stopSignal} during start-up`, 0);
}

async function cleanupAll(): Promise<void> {
  for (const c of cleanups.reverse()) {
    try {
      await c.run();
    } catch (err) {
      say(`stopping ${c.what} failed: ${oneLine(err)}`);
    }
  }
}

async function start(): Promise<Promise<void>> {
  const reuse = configuredServer();
  const temporalPort = portFromEnv('AGENT_DEV_TEMPORAL_PORT', DEFAULT_TEMPORAL_PORT);
  const uiPort = portFromEnv('AGENT_DEV_UI_PORT', 8233);
  const worldPort = portFromEnv('AGENT_DEV_WORLD_PORT', DEFAULT_WORLD_PORT);
  const needed: Array<[number, string, string]> = [
    ...(reuse
      ? []
      : ([
          [temporalPort, 'the Temporal frontend', 'AGENT_DEV_TEMPORAL_PORT'],
          [uiPort, 'the Temporal Web UI', 'AGENT_DEV_UI_PORT'],
        ] as Array<[number, string, string]>)),
    [worldPort, 'the world', 'AGENT_DEV_WORLD_PORT'],
  ];
  for (const [port, what, env] of needed) {
    if (!(await isPortFree(port))) {
      const hint = env === 'AGENT_DEV_TEMPORAL_PORT' ? `, or TEMPORAL_ADDRESS=127.0.0.1:${port} to use the server already there` : '';
      throw new StartupError(`port ${port} (${what}) is already in use on 127.0.0.1; stop whatever holds it, or set ${env}${hint}`, 1);
    }
  }

  const operator = ensureOperator();
  if (!operator.listed) say(`${shown(paths.approversFile)} does not list the key in ${shown(paths.keyFile)}; it cannot approve on this worker`);
  checkStop();

  // The server and the world come up side by side; whichever started is stopped again on failure.
  const [temporal, world] = await Promise.allSettled([
    useTemporal({ port: temporalPort, uiPort, dbFile: paths.temporalDb, log: stderrLog }),
    startWorld({ dbPath: paths.worldDb, port: worldPort }),
  ]);
  if (temporal.status === 'fulfilled') {
    serverStartedHere = temporal.value.startedHere;
    cleanups.push({ what: 'the Temporal server', run: () => temporal.value.stop() });
  }
  if (world.status === 'fulfilled') cleanups.push({ what: 'the world', run: () => world.value.stop() });
  if (temporal.status === 'rejected') throw temporal.reason;
  if (world.status === 'rejected') throw world.reason;
  checkStop();
  const target: TemporalTarget = temporal.value;
  const running: RunningWorld = world.value;

  const connection = await NativeConnection.connect(target.connectionOptions);
  cleanups.push({ what: 'the worker connection', run: () => connection.close() });
  checkStop();
  mkdirSync(paths.blobDir, { recursive: true });
  worker = await createAgentWorker({
    connection,
    namespace: target.namespace,
    taskQueue: TASK_QUEUE,
    workflowsPath: examplesWorkflowsPath,
    implementations,
    deps: { world: new WorldClient(running.url) },
    blobDir: paths.blobDir,
    toolTimeoutMs: 5_000,
    models: openAiAdapterFromEnv(),
    approvers: operator.directory,
  });
  checkStop();
  const done = worker.run();
  if (stopSignal) stopWorker();

  const ui = target.uiUrl ? `${target.uiUrl}/namespaces/${target.namespace}/workflows` : '(none: set TEMPORAL_UI_URL to show it here)';
  const env: string[] = [];
  if (target.startedHere && target.address !== `127.0.0.1:${DEFAULT_TEMPORAL_PORT}`) env.push(`export TEMPORAL_ADDRESS=${target.address}`);
  if (running.url !== `http://127.0.0.1:${DEFAULT_WORLD_PORT}`) env.push(`export WORLD_URL=${running.url}`);
  const created = operator.created.length ? ` (created ${operator.created.map(shown).join(' and ')})` : '';
  out('');
  out('Local agent stack is up. Ctrl-C stops all of it.');
  out(
    `  Temporal     ${target.address}, namespace ${target.namespace}${target.startedHere ? `, state in ${shown(paths.temporalDb)}` : ' (configured; not started here)'}`,
  );
  out(`  Web UI       ${ui}`);
  out(`  WORLD_URL    ${running.url} (state in ${shown(paths.worldDb)})`);
  out(`  task queue   ${TASK_QUEUE} (the worker runs in this process)`);
  out(`  approver     ${operator.key.id}, key ${shown(paths.keyFile)}, listed in ${shown(paths.approversFile)}${created}`);
  out('');
  out('In another terminal:');
  for (const line of env) out(`  ${line}`);
  out('  npm run world:seed -- payment PX-1042 --ledger FAILED');
  out('  npm run cli -- start payments PX-1042');
  out('  npm run cli -- watch payments-PX-1042');
  out(`  npm run cli -- approve payments-PX-1042 <request> --key ${shown(paths.keyFile)}   # <request>: from watch or status`);
  out('DEV_READY');
  return done;
}

async function main(): Promise<number> {
  try {
    const done = await start();
    await done;
    if (!stopSignal) {
      say('the worker stopped on its own');
      return 1;
    }
    return 0;
  } catch (err) {
    if (err instanceof StartupError) {
      if (err.exitCode !== 0) say(err.message);
      return err.exitCode;
    }
    if (stopSignal) return 0;
    say(oneLine(err));
    return 1;
  } finally {
    await cleanupAll();
  }
}

const code = await main();
if (stopSignal) say('stopped');
process.exit(code);
