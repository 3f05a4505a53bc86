// `npm run chaos`: many concurrent runs with effects while the worker is SIGKILLed and
// restarted at random moments. Every run must end, none may be lost, and the systems of record
// must hold no duplicate effect. Its last line is machine-checked by CI.
import { examplesWorkflowsPath } from '../../demo/local-stack.js';
import { signDecision } from '../../client/sign.js';
import { keys as testKeys, TEST_DIRECTORY } from '../helpers/keys.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { WorldClient } from '../../domains/world/client.js';
import { startWorld } from '../../domains/world/process.js';
import { stderrLog } from '../../temporal-dev/log.js';
import { useTemporal } from '../../temporal-dev/target.js';
import { bundleWorkflows } from '../../worker/bundle.js';
import { EXAMPLES_WORKER, startWorkerProcess, type WorkerProcess } from '../helpers/worker-process.js';
import { agentWorkflow } from '../../domains/workflows.js';
import { approveUpdate, stateQuery, type RunResult } from '../../workflows/messages.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '32' },
    kills: { type: 'string', default: '10' },
    seed: { type: 'string', default: String(Date.now() % 100_000) },
    'timeout-s': { type: 'string', default: '420' },
  },
  strict: true,
});
const RUNS = Number(values.runs);
const KILLS = Number(values.kills);
let seed = Number(values.seed);
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31); // reproducible with --seed
const log = (m: string) => process.stderr.write(`[chaos] ${m}\n`);

const scratch = mkdtempSync(join(tmpdir(), 'chaos-'));
const target = await useTemporal({ headless: true, dbFile: join(scratch, 'temporal.sqlite'), log: stderrLog });
const world = await startWorld({ dbPath: join(scratch, 'world.sqlite') });
const worldClient = new WorldClient(world.url);
const bundlePath = join(scratch, 'bundle.js');
writeFileSync(bundlePath, (await bundleWorkflows(examplesWorkflowsPath)).code);
const connection = await Connection.connect(target.connectionOptions);
const client = new Client({ connection, namespace: target.namespace });
const taskQueue = `chaos-${process.pid}`;
const approversFile = join(scratch, 'approvers.json');
writeFileSync(approversFile, JSON.stringify(TEST_DIRECTORY));
const spawn = () => startWorkerProcess({ script: EXAMPLES_WORKER, temporalAddress: target.address, taskQueue, worldUrl: world.url, workflowBundlePath: bundlePath, toolTimeoutMs: 1_000, approversFile });

log(`seed=${values.seed} runs=${RUNS} kills=${KILLS}`);
const stamp = Date.now().toString(36);
interface Run { caseId: string; domain: 'incidents' | 'payments'; handle: WorkflowHandle<typeof agentWorkflow>; result?: RunResult; error?: string }
const runs: Run[] = [];

let worker: WorkerProcess = await spawn();
let kills = 0;
const deadline = Date.now() + Number(values['timeout-s']) * 1_000;

// Runs start over the first seconds, so kills land at every stage of their lives.
const starting = (async () => {
  for (let i = 0; i < RUNS; i++) {
    runs.push(await startOne(i));
    await sleep(150 + random() * 250);
  }
})();

const finished = (r: Run) => r.result !== undefined || r.error !== undefined;
const approver = approveWhenAsked();
while (Date.now() < deadline && (kills < KILLS || runs.length < RUNS || !runs.every(finished))) {
  await sleep(1_200 + random() * 2_000);
  if (kills < KILLS) {
    await worker.kill();
    kills++;
    log(`kill ${kills}: pid ${worker.pid}; ${runs.filter(finished).length}/${runs.length} runs ended`);
    worker = await spawn();
  }
}
await starting;
await approver.stop();

// Ground truth: what the world stored, per case, against what each run believes happened.
const effects = await worldClient.effects();
let duplicates = 0;
for (const run of runs) {
  const stored = effects.filter((e) => e.key === run.caseId);
  const believedApplied = run.result?.effects.filter((e) => e.status === 'applied').length ?? 0;
  // Each case needs exactly one effect; more than one stored means something ran twice.
  if (stored.length > 1) duplicates += stored.length - 1;
  if (run.result && stored.length < believedApplied) log(`MISMATCH ${run.caseId}: run believes ${believedApplied} applied, world stored ${stored.length}`);
}
const keys = new Map<string, number>();
for (const e of effects) keys.set(e.idempotencyKey, (keys.get(e.idempotencyKey) ?? 0) + 1);
duplicates += [...keys.values()].filter((n) => n > 1).length;

// A request that reached the world again under a key it already applied: the world deduped it,
// but for a non-idempotent effect it means something retried blind. Reported, and must be 0.
const calls = await worldClient.calls();
const blindRetries = calls.filter((c) => c.deduplicated && (c.op === 'payments.reissue' || c.op === 'incidents.restart')).length;
log(`requests deduplicated by key: ${calls.filter((c) => c.deduplicated).length} (non-idempotent: ${blindRetries})`);
duplicates += blindRetries;

const terminal = runs.filter((r) => r.result).length;
const lost = RUNS - terminal;
const classes = new Map<string, number>();
for (const r of runs) if (r.result) classes.set(r.result.terminal.class, (classes.get(r.result.terminal.class) ?? 0) + 1);
log(`terminal classes: ${[...classes].map(([k, v]) => `${k}=${v}`).join(' ')}`);
for (const r of runs.filter((x) => x.error)) log(`run ${r.caseId} did not end: ${r.error}`);

await worker.stop();
await connection.close();
await world.stop();
await target.stop();
rmSync(scratch, { recursive: true, force: true });
process.stdout.write(`runs=${RUNS} kills=${kills} terminal=${terminal} effects=${effects.length} duplicates=${duplicates} lost=${lost}\n`);
process.exit(duplicates === 0 && lost === 0 && terminal === RUNS && kills >= KILLS ? 0 : 1);

async function startOne(i: number): Promise<Run> {
  // Two thirds incidents (restart or revert), one third payments reissues behind an approval.
  const domain = i % 3 === 2 ? 'payments' : 'incidents';
  const caseId = `${domain === 'payments' ? 'PX' : 'INC'}-chaos-${stamp}-${i}`;
  if (domain === 'payments') {
    await worldClient.seedPayment({ transferId: caseId, ledgerStatus: 'FAILED', replicaStatus: 'FAILED', replicaLagMs: 60_000, processorAck: 'REJECTED', amountMinor: 1_000 + i, currency: 'EUR', destination: 'DE00CHAOS' });
  } else {
    await worldClient.seedIncident({ caseId, faulty: { service: (['api', 'db', 'cache'] as const)[i % 3] ?? 'api', fault: i % 2 ? 'memory' : 'bad_deploy' } });
  }
  // Some effects lose their reply after committing: those must be reconciled, not resent.
  const op = domain === 'payments' ? 'payments.reissue' : i % 2 ? 'incidents.restart' : 'incidents.revert';
  if (random() < 0.3) await worldClient.injectFault({ op, key: caseId, mode: random() < 0.5 ? 'commit_then_500' : 'commit_then_drop' });
  const handle = await client.workflow.start(agentWorkflow, {
    taskQueue,
    workflowId: `${domain}-${caseId}`,
    args: [{ run: { domain, caseId, model: { adapter: 'rules', latencyMs: 400 + Math.floor(random() * 800) } } }],
  });
  const run: Run = { caseId, domain, handle };
  handle.result().then(
    (result) => (run.result = result),
    (err: unknown) => (run.error = err instanceof Error ? err.message : String(err)),
  );
  return run;
}

/** Plays the payments approver: approves each pending reissue it sees, as the right person. */
function approveWhenAsked(): { stop(): Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const run of runs.filter((r) => r.domain === 'payments' && !finished(r))) {
        try {
          const view = await run.handle.query(stateQuery);
          if (view.awaiting) {
            await run.handle.executeUpdate(approveUpdate, { args: [signDecision(testKeys.alice, run.handle.workflowId, view.awaiting, 'approve', 'chaos approver')] });
          }
        } catch {
          // The worker may be dead right now, or someone approved first: try again next round.
        }
      }
      await sleep(500);
    }
  })();
  return { stop: async () => { stopped = true; await loop; } };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
