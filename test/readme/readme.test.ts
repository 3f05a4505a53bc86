// The README and the docs its sections moved to are executable: every ```sh block marked `run`
// on a checked page (CHECKED_PAGES in blocks.ts, README first) is run command by command, exactly
// as printed and page after page, in a copy of this checkout as a clone holds it (so .agent/,
// .world/, run.json and key files land there, not in the repository) against the tests' own Temporal dev server. What
// the test adds is the environment a reader's shell would have once `npm run dev` told them where
// things are (TEMPORAL_ADDRESS, WORLD_URL, a free world and console port, a task queue of its own
// so no other test's worker shares it) and three rules, said in DEVELOPERS.md's "The docs are
// checked": `npm ci && ` is left out (the copy shares this checkout's node_modules),
// `<request-id>` becomes the id of the run's pending request, and the long-lived commands (`npm
// run dev`, `npm run console`, `npm run worker`, `watch`) are started, checked to answer, and
// stopped by their pid. The ts blocks of docs/starter.md must be the starter's files verbatim
// (test/package/starter.test.ts compiles and runs those against the packed engine), and every
// relative link must lead somewhere. When the pages and the code disagree, a command fails here.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../client/agent-client.js';
import { waitUntil } from '../../client/wait.js';
import { implementations } from '../../domains/implementations.js';
import { freePort } from '../../temporal-dev/ports.js';
import { taskQueueFor } from '../../worker/connection.js';
import { connectClient, uniqueTaskQueue } from '../support/temporal.js';
import { CHECKED_PAGES, checkedBlocks, commandsOf, repoRoot as root } from './blocks.js';
import { brokenLinks, linkedPages } from './links.js';
/**
 * Not copied when git cannot say what a clone holds: installed packages (linked instead), git, and
 * local state a reader's clone would not have, such as the AgentDojo venv (about 300 MB in some
 * 20,000 files) and the eval's scratch.
 */
const NOT_COPIED = new Set(['node_modules', '.git', '.temporal', '.world', '.agent', '.agentdojo', '.eval', 'dist', 'coverage']);
const ARTIFACTS = join('test', 'console', 'artifacts');

/**
 * The checkout's files as a reader's clone has them: what git tracks, and new files not yet
 * committed, never what git ignores. A directory copy also took ignored trees nobody's clone
 * has (model-local's downloaded models and packages, gigabytes, the AgentDojo venv), which made
 * the copy the slowest step of this test. Undefined when git cannot answer (not a checkout).
 */
function readerFiles(): string[] | undefined {
  try {
    const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    // A tracked file deleted in this checkout is listed too, and is not there to copy.
    return listed.split('\0').filter((f) => f !== '' && !f.startsWith(`${ARTIFACTS}/`) && existsSync(join(root, f)));
  } catch {
    return undefined;
  }
}

interface Started {
  command: string;
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

describe('the README and the docs it leads to, run as printed', { timeout: 1_200_000 }, () => {
  let copy = '';
  let env: NodeJS.ProcessEnv = {};
  let consoleUrl = '';
  let agent: AgentClient;
  let closeClient: () => Promise<void> = async () => {};
  const running: Started[] = [];

  beforeAll(async () => {
    copy = mkdtempSync(join(tmpdir(), 'agent-readme-'));
    const files = readerFiles();
    if (files) {
      for (const file of files) {
        mkdirSync(dirname(join(copy, file)), { recursive: true });
        copyFileSync(join(root, file), join(copy, file));
      }
    } else {
      for (const entry of readdirSync(root)) {
        if (NOT_COPIED.has(entry) || entry.endsWith('.tgz')) continue;
        cpSync(join(root, entry), join(copy, entry), { recursive: true, filter: (src) => !src.includes(ARTIFACTS) });
      }
    }
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
    const [worldPort, consolePort] = [await freePort(), await freePort()];
    consoleUrl = `http://127.0.0.1:${consolePort}`;
    env = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TEMPORAL_') && !k.startsWith('AGENT_') && k !== 'WORLD_URL') env[k] = v;
    Object.assign(env, {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
      AGENT_TASK_QUEUE: uniqueTaskQueue('readme'),
      AGENT_DEV_WORLD_PORT: String(worldPort),
      WORLD_URL: `http://127.0.0.1:${worldPort}`,
      AGENT_CONSOLE_PORT: String(consolePort),
    });
    // As in a container: no $USER. `note` and `cancel` as printed still know who is acting.
    delete env.USER;
    delete env.USERNAME;
    const connected = await connectClient();
    closeClient = connected.close;
    agent = new AgentClient({ client: connected.client, taskQueue: env.AGENT_TASK_QUEUE ?? '' });
  });

  afterAll(async () => {
    // Whatever is still up (a failed test): our own process groups, by pid.
    for (const s of running) if (s.child.exitCode === null && s.child.signalCode === null && s.child.pid) process.kill(-s.child.pid, 'SIGKILL');
    await closeClient();
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  /** A command in its own process group (sh, npm, node), so it can be stopped as a whole by its pid. */
  function launch(command: string): Started {
    const child = spawn('sh', ['-c', command], { cwd: copy, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const started = { command, child, out: () => out, exited };
    running.push(started);
    return started;
  }

  async function finished(s: Started, timeoutMs: number): Promise<string> {
    const code = await Promise.race([s.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), timeoutMs).unref())]);
    expect(code, `\`${s.command}\` ${code === 'timeout' ? `did not end in ${timeoutMs / 1000} s` : `exited ${code}`}:\n${s.out().slice(-3_000)}`).toBe(0);
    return s.out();
  }

  async function ready(s: Started, marker: RegExp): Promise<void> {
    await waitUntil(
      async () => {
        if (s.child.exitCode !== null) throw new Error(`\`${s.command}\` exited ${s.child.exitCode} before it was ready:\n${s.out().slice(-3_000)}`);
        return marker.test(s.out());
      },
      `\`${s.command}\` to be ready`,
      { timeoutMs: 180_000, everyMs: 250 },
    );
  }

  async function stop(s: Started): Promise<void> {
    if (s.child.exitCode === null && s.child.signalCode === null && s.child.pid) process.kill(-s.child.pid, 'SIGINT');
    await s.exited;
  }

  /** The run a command names (`... approve <run> ...`). */
  const runOf = (command: string) => /\bcli -- \S+ (\S+)/.exec(command)?.[1] ?? '';

  it('marks every code block, and shows the starter files exactly as they are', () => {
    const blocks = checkedBlocks();
    expect(blocks.filter((b) => b.mode === 'missing').map((b) => `${b.page} line ${b.line} (${b.section})`)).toEqual([]);
    const files = blocks.filter((b) => b.mode === 'file');
    expect(files.map((b) => `${b.page}: ${b.arg}`)).toEqual([
      'docs/starter.md: examples/starter/domain.ts',
      'docs/starter.md: examples/starter/worker.ts',
      'docs/starter.md: examples/starter/run.ts',
    ]);
    for (const b of files) expect(b.body, `${b.page} line ${b.line} is not ${b.arg}; paste the file in again`).toBe(readFileSync(join(root, b.arg), 'utf8'));
    for (const b of blocks.filter((x) => x.mode === 'skip')) expect(b.arg, `${b.page} line ${b.line}: a skipped block says why`).not.toBe('');
    // The README's quick start and the starter's commands stay on the README, and it leads to the starter and its walk-through.
    const readme = blocks.filter((b) => b.page === 'README.md');
    expect(readme.filter((b) => b.mode === 'run').flatMap(commandsOf)).toContain('npm ci && npm run demo');
    expect(readme.filter((b) => b.mode === 'starter')).toHaveLength(1);
    const text = readFileSync(join(root, 'README.md'), 'utf8');
    expect(text).toContain('](examples/starter/)');
    expect(text).toContain('](docs/starter.md)');
    // The queue the README names for the examples is the one their worker and CLI derive.
    expect(text).toContain(
      `\`${taskQueueFor(
        implementations.map((i) => i.domain.name),
        {},
      )}\``,
    );
  });

  it('leaves no relative link without its file or heading', () => {
    expect(linkedPages()).toEqual(expect.arrayContaining(['README.md', ...CHECKED_PAGES]));
    expect(linkedPages().flatMap(brokenLinks)).toEqual([]);
  });

  it('runs every command of the quick start, a run, and operating runs, as printed', async () => {
    const commands = checkedBlocks()
      .filter((b) => b.mode === 'run')
      .flatMap(commandsOf)
      .map((c) => c.replace(/^npm ci && /, ''));
    expect(commands.length).toBeGreaterThan(20);
    const watches = new Map<string, Started>();
    const output = new Map<string, string>();

    for (const printed of commands) {
      let command = printed;
      if (command.includes('<request-id>')) {
        const runId = runOf(command);
        const awaiting = await waitUntil(async () => (await agent.state(runId)).awaiting ?? undefined, `the pending request of ${runId}`, {
          timeoutMs: 120_000,
          everyMs: 500,
        });
        command = command.replace('<request-id>', awaiting.requestId);
      }
      if (command === 'npm run dev') {
        await ready(launch(command), /^DEV_READY$/m);
      } else if (command === 'npm run console') {
        const s = launch(command);
        await ready(s, /^CONSOLE_READY$/m);
        const inbox = await fetch(`${consoleUrl}/inbox`);
        expect(inbox.status).toBe(200);
        expect(await inbox.text()).toContain('<html');
        await stop(s);
      } else if (/(^| )npm run worker$/.test(command)) {
        const s = launch(command);
        await ready(s, /WORKER_READY/);
        await stop(s);
      } else if (/^npm run cli -- watch /.test(command)) {
        // Runs until its run ends, which the approval further down brings about.
        watches.set(runOf(command), launch(command));
      } else {
        output.set(printed, await finished(launch(command), 300_000));
        // A decision ends the watch that follows its run: what `watch` printed must end with the outcome.
        const watch = watches.get(runOf(command));
        if (watch && /^npm run cli -- (approve|deny) /.test(command)) {
          const seen = await finished(watch, 120_000);
          expect(seen).toMatch(/^terminal: resolved \(probe_confirmed\)/m);
          watches.delete(runOf(command));
        }
      }
    }
    expect(watches.size, 'every watch ended with its run').toBe(0);

    // What the printed comments promise.
    const after = [...output.entries()].filter(([c]) => c.startsWith('npm run cli -- status payments-PX-1042')).at(-1)?.[1] ?? '';
    expect(after).toMatch(/resolved/);
    expect(JSON.parse(readFileSync(join(copy, 'run.json'), 'utf8'))).toMatchObject({ runId: 'payments-PX-1042' });
    expect([...output.entries()].find(([c]) => c.startsWith('npm run cli -- verify'))?.[1]).toMatch(/verified: run payments-PX-1042, 1 signed statement/);
    const ended = (runId: string) =>
      waitUntil(async () => (await agent.state(runId)).terminal ?? undefined, `${runId} to end`, { timeoutMs: 60_000, everyMs: 500 });
    expect((await ended('payments-PX-1043')).class).toBe('escalated');
    expect((await ended('payments-PX-1044')).class).toBe('cancelled');
    expect(JSON.parse(readFileSync(join(copy, 'approvers.json'), 'utf8'))).toMatchObject({ approvers: [{ id: 'bob@ops', roles: ['payments-approver'] }] });

    for (const s of running) await stop(s);
  });
});
