// `npm run dev` as a newcomer uses it, end to end and with real processes only: the dev stack
// (its own Temporal server, world and worker; free ports and a temporary state directory so the
// repository's .temporal/.world/.agent stay untouched), `world:seed` to create a case, the
// examples' CLI on its default task queue to start the run, the operator key dev made on first
// run to approve it, and one SIGINT that must take everything down and exit 0.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../temporal-dev/ports.js';
import { runScript, type ScriptResult } from '../support/run-script.js';
import { PATIENCE_MS, waitUntil } from '../support/wait.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const stateDir = mkdtempSync(join(tmpdir(), 'agent-dev-stack-'));
let dev: ChildProcessWithoutNullStreams | undefined;

afterAll(() => {
  // Only if the test failed before its own SIGINT: take dev (and with it its children) down.
  if (dev && dev.exitCode === null && dev.signalCode === null) dev.kill('SIGKILL');
  rmSync(stateDir, { recursive: true, force: true });
});

/** The environment of a fresh shell: nothing that names a Temporal server, queue or world. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('TEMPORAL_') || k.startsWith('AGENT_') || k === 'WORLD_URL') continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

function run(script: string, args: string[], env: Record<string, string>): Promise<ScriptResult> {
  return runScript(script, args, cleanEnv(env));
}

function ok(r: ScriptResult): string {
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

async function distinctFreePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

/** True when something accepts a TCP connection on 127.0.0.1:port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('npm run dev', () => {
  it('brings up server, world and worker; a seeded case runs from the CLI to resolved; one SIGINT stops it all', { timeout: 90_000 }, async () => {
    const [temporalPort, uiPort, worldPort] = (await distinctFreePorts(3)) as [number, number, number];
    dev = spawn(process.execPath, ['--import', 'tsx', 'demo/dev.ts'], {
      cwd: root,
      env: cleanEnv({
        AGENT_DEV_STATE_DIR: stateDir,
        AGENT_DEV_TEMPORAL_PORT: String(temporalPort),
        AGENT_DEV_UI_PORT: String(uiPort),
        AGENT_DEV_WORLD_PORT: String(worldPort),
      }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const devProcess = dev;
    let stdout = '';
    let stderr = '';
    devProcess.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    devProcess.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => devProcess.once('exit', (code) => resolve(code)));

    await waitUntil(
      () => {
        if (devProcess.exitCode !== null) throw new Error(`dev exited ${devProcess.exitCode} before DEV_READY:\n${stderr}`);
        return /^DEV_READY$/m.test(stdout) ? true : undefined;
      },
      'DEV_READY from npm run dev',
      { everyMs: 100 },
    );
    const worldUrl = `http://127.0.0.1:${worldPort}`;
    const keyFile = join(stateDir, '.agent', 'operator.key');
    expect(stdout).toContain(`http://127.0.0.1:${uiPort}/namespaces/default/workflows`);
    expect(stdout).toContain(`WORLD_URL    ${worldUrl}`);
    expect(stdout).toContain('task queue   agents-incidents-payments-synthetic');
    expect(stdout).toContain(`export TEMPORAL_ADDRESS=127.0.0.1:${temporalPort}`);
    expect(stdout).toContain(`--key ${keyFile}`);
    // The first run made the operator's key (private to its owner) and the directory that trusts it.
    expect(statSync(keyFile).mode & 0o077).toBe(0);
    const directory = JSON.parse(readFileSync(join(stateDir, '.agent', 'approvers.json'), 'utf8')) as { approvers: Array<{ id: string; roles: string[] }> };
    expect(directory.approvers).toEqual([expect.objectContaining({ id: 'operator@local', roles: ['payments-approver', 'sre-lead', 'synthetic-approver'] })]);
    expect(statSync(join(stateDir, '.temporal', 'dev.sqlite')).isFile()).toBe(true);
    expect(statSync(join(stateDir, '.world', 'dev.db')).isFile()).toBe(true);

    // What the banner tells an operator to do, with the environment it prints.
    const transferId = `PX-${randomUUID().slice(0, 8)}`;
    const runId = `payments-${transferId}`;
    const cliEnv = { TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}` };
    expect(ok(await run('domains/world/seed-cli.ts', ['payment', transferId, '--ledger', 'FAILED'], { WORLD_URL: worldUrl }))).toContain(
      `seeded payment ${transferId}: ledger FAILED`,
    );
    const started = JSON.parse(ok(await run('domains/cli.ts', ['start', 'payments', transferId, '--json'], cliEnv))) as { runId: string; taskQueue: string };
    expect(started).toMatchObject({ runId, taskQueue: 'agents-incidents-payments-synthetic' });

    interface Status {
      phase: string;
      awaiting: { requestId: string; eligible: string[] } | null;
      terminal: { class: string; reason: string } | null;
    }
    const status = async (): Promise<Status> => JSON.parse(ok(await run('domains/cli.ts', ['status', runId, '--json'], cliEnv))) as Status;
    const awaiting = await waitUntil(
      async () => {
        const s = await status();
        if (s.terminal) throw new Error(`run ended before asking for approval: ${JSON.stringify(s.terminal)}`);
        return s.awaiting && s.awaiting.eligible.includes('operator@local') ? s.awaiting : undefined;
      },
      'the reissue awaiting the operator',
      { everyMs: 200 },
    );
    ok(await run('domains/cli.ts', ['approve', runId, awaiting.requestId, '--key', keyFile], cliEnv));
    const terminal = await waitUntil(async () => (await status()).terminal ?? undefined, 'the run to end', { everyMs: 200 });
    expect(terminal.class).toBe('resolved');

    // One SIGINT, as Ctrl-C sends it: everything stops and dev exits 0.
    devProcess.kill('SIGINT');
    const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), PATIENCE_MS).unref())]);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/dev: SIGINT: stopping the worker, the world and the Temporal server/);
    expect(await accepts(worldPort)).toBe(false);
    expect(await accepts(temporalPort)).toBe(false);
    expect(await accepts(uiPort)).toBe(false);
  });
});
