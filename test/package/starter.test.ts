// The starter a team copies (examples/starter/: domain.ts, worker.ts, run.ts) built as that
// team would build it: a temporary copy of the folder, the packed engine installed into it from
// its tarball, `tsc` over the three files, then the README's own commands for it, run as printed
// in that copy: make a key and the directory that trusts it, start the worker, run a case. The
// case must resolve on the starter's own task queue while the examples' worker polls its own
// default queue on the same server, and the order book must show exactly one cancellation.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readyLine } from '../support/child-lines.js';
import { implementations } from '../../domains/implementations.js';
import { taskQueueFor } from '../../worker/connection.js';
import { connectClient } from '../support/temporal.js';
import { EXAMPLES_WORKER, startWorkerProcess, type WorkerProcess } from '../support/worker-process.js';
import { checkedBlocks, commandsOf } from '../readme/blocks.js';
import { installInto, packedEngine } from './packed.js';

const starter = fileURLToPath(new URL('../../examples/starter/', import.meta.url));

/** The environment of the team's shell: the test's server, and nothing that picks a queue. */
function teamEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_NAMESPACE: inject('temporalNamespace') };
  delete env.AGENT_TASK_QUEUE;
  delete env.AGENT_APPROVERS_FILE;
  return env;
}

describe('the starter, copied and built from the packed engine', { timeout: 300_000 }, () => {
  let project = '';
  let examples: WorkerProcess | undefined;
  let worker: ChildProcess | undefined;
  const examplesQueue = taskQueueFor(
    implementations.map((i) => i.domain.name),
    {},
  );

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), 'agent-starter-'));
    cpSync(starter, project, { recursive: true, filter: (src) => !/node_modules|orders\.json|approvers\.json|\.key$/.test(src) });
    const tarball = await packedEngine();
    installInto(project, tarball);
    // The examples' worker on its default queue, as `npm run dev` runs it beside a team's own.
    examples = await startWorkerProcess({
      script: EXAMPLES_WORKER,
      temporalAddress: inject('temporalAddress'),
      taskQueue: examplesQueue,
      worldUrl: inject('worldUrl'),
      workflowBundlePath: inject('workflowBundlePath'),
      approversFile: inject('approversFile'),
    });
  }, 360_000); // packing builds the engine: minutes on a loaded machine

  afterAll(async () => {
    // Our own processes only, by pid: the worker was started in its own process group (npm, sh, tsx, node).
    if (worker?.pid && worker.exitCode === null) {
      process.kill(-worker.pid, 'SIGTERM');
      await new Promise((r) => worker?.once('exit', r));
    }
    await examples?.stop();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('type-checks: the three files compile against the packed package', () => {
    execFileSync('npx', ['--no-install', 'tsc', '--noEmit', '-p', 'tsconfig.json'], { cwd: project, stdio: 'pipe' });
  });

  it("runs the README's commands for it: a case resolves on the starter's own queue beside the examples' worker", async () => {
    const blocks = checkedBlocks().filter((b) => b.mode === 'starter');
    expect(blocks.length).toBe(1);
    const commands = commandsOf(blocks[0]!);
    expect(commands).toHaveLength(3);
    const [keys = '', startWorker = '', runCase = ''] = commands;
    expect(startWorker).toBe('npm run worker');

    const sh = (command: string) => execFileSync('sh', ['-c', command], { cwd: project, env: teamEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    sh(keys);
    const directory = JSON.parse(readFileSync(join(project, 'approvers.json'), 'utf8')) as { approvers: Array<{ id: string; roles: string[] }> };
    expect(directory.approvers).toEqual([expect.objectContaining({ id: 'you@team', roles: ['orders-approver'] })]);

    const started = spawn('sh', ['-c', startWorker], { cwd: project, env: teamEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    worker = started;
    const ready = await readyLine(started, "the starter's worker", (l) => l.startsWith('WORKER_READY'));
    expect(ready).toBe('WORKER_READY task queue agents-orders');
    expect(examplesQueue).not.toBe('agents-orders');

    const printed = sh(runCase);
    expect(printed).toContain('run orders-O-1001 on task queue agents-orders');
    expect(printed).toMatch(/^approval requested: cancel_order \{"orderId":"O-1001"\} \(request [^)]+\)$/m);
    expect(printed).toMatch(/^approved as you@team: /m);
    expect(printed).toMatch(/^outcome: resolved \(probe_confirmed\)/m);

    // The team's system of record: one cancellation, of the case's order; the note's "also cancel O-1002" did nothing.
    const book = JSON.parse(readFileSync(join(project, 'orders.json'), 'utf8')) as {
      orders: Record<string, { status: string }>;
      cancellations: Record<string, { orderId: string }>;
    };
    expect(Object.values(book.cancellations)).toEqual([expect.objectContaining({ orderId: 'O-1001' })]);
    expect(Object.keys(book.cancellations)).toEqual(['orders/cancel_order/O-1001']);
    expect(book.orders['O-1002']?.status).toBe('SHIPPED');

    // An order the book does not have: the read is refused once, and the policy escalates with
    // the refusal rather than reading again until the loop guard stops it.
    const missing = spawnSync('sh', ['-c', runCase.replace('O-1001', 'O-404')], { cwd: project, env: teamEnv(), encoding: 'utf8' });
    expect(missing.status, missing.stderr).toBe(1);
    expect(missing.stdout).toMatch(/^outcome: escalated \(model_escalation\) read_order: .*no order O-404/m);

    // And the server agrees about where the run lived.
    const { client, close } = await connectClient();
    try {
      const description = await client.workflow.getHandle('orders-O-1001').describe();
      expect({ queue: description.taskQueue, status: description.status.name }).toEqual({ queue: 'agents-orders', status: 'COMPLETED' });
    } finally {
      await close();
    }
  });
});
