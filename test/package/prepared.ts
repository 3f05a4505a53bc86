// The projects the package tests install the packed engine into, made ahead of them. On a
// fresh clone each package test spent its first minute or two building the engine (`npm pack`)
// and extracting it and its dependencies (`npm install`, mostly disk): time a test file holds a
// worker slot doing nothing else. The global setup now starts both in the background as the run
// starts, for the package tests that are in the run, so that work overlaps the server's start
// and the other files; each test then takes its project, made exactly as it made it itself
// (same files, same install command), by renaming it into its own directory. A test that finds
// none prepared (a watch-mode rerun, or a failed preparation) makes it itself, as before.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitUntil } from '../../client/wait.js';
import { claim, INSTALL_ARGS, installInto, PACK_ARGS, packDir, packDirIn, packedEngine, repoRoot, tarballFrom, type PackOutcome } from './packed.js';

const starter = fileURLToPath(new URL('../../examples/starter/', import.meta.url));

/** Each package test's project before the install, and the test file it is for. */
export const PACKAGE_PROJECTS = {
  /** An empty team project (test/package/outside-project.test.ts copies its own files in after). */
  outside: {
    file: 'test/package/outside-project.test.ts',
    seed: (dir: string) => writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'refunds-team', version: '1.0.0', type: 'module', private: true })),
  },
  /** A copy of examples/starter/ without what a run of it leaves behind. */
  starter: {
    file: 'test/package/starter.test.ts',
    seed: (dir: string) => cpSync(starter, dir, { recursive: true, filter: (src) => !/node_modules|orders\.json|approvers\.json|\.key$/.test(src) }),
  },
} as const;
export type PackageProject = keyof typeof PACKAGE_PROJECTS;

type Prepared = { ok: true } | { error: string };
const markerOf = (project: string) => `${project}.done`;

/**
 * From the global setup: packs the engine into the run's pack directory, then installs it into
 * each named project there, one after another, in child processes of their own process group.
 * `done` resolves when all is prepared (or failed); `stop` ends what is still running and resolves
 * once every marker is written.
 */
export function startPreparing(scratch: string, names: readonly PackageProject[]): { stop: () => Promise<void>; done: Promise<void> } {
  const dir = packDirIn(scratch);
  if (!claim(dir)) return { stop: async () => undefined, done: Promise.resolve() };
  // Claimed before the pack starts, so a test that comes early waits for its project instead of making one too.
  for (const name of names) mkdirSync(join(dir, name));
  const live = new Set<ChildProcess>();
  let stopped = false;
  const npm = (args: string[], cwd: string) =>
    new Promise<{ stdout: string } | { error: string }>((resolve) => {
      if (stopped) return resolve({ error: 'the test run ended first' });
      const child = spawn('npm', args, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      live.add(child);
      let stdout = '';
      let stderr = '';
      child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4_000)));
      let settled = false;
      const settle = (error?: string) => {
        if (settled) return; // 'error' and 'close' may both come
        settled = true;
        live.delete(child);
        resolve(error === undefined ? { stdout } : { error: `${error}\n${stdout.slice(-2_000)}${stderr.slice(-2_000)}` });
      };
      child.once('error', (err) => settle(`npm ${args[0]} did not start: ${err.message}`));
      child.once('close', (code, signal) => settle(code === 0 ? undefined : `npm ${args[0]} exited ${code ?? signal}`));
    });
  const work = (async () => {
    const packed = await npm(PACK_ARGS(dir), repoRoot);
    const outcome: PackOutcome = 'stdout' in packed ? { tarball: tarballFrom(dir, packed.stdout) } : packed;
    writeFileSync(join(dir, 'done'), JSON.stringify(outcome));
    // One install at a time: this runs beside the first, largest test files, and two npm
    // installs at once would take both cores of a small CI host from them.
    for (const name of names) {
      await (async () => {
        const project = join(dir, name);
        let prepared: Prepared;
        if (!('tarball' in outcome)) prepared = { error: 'the engine was not packed' };
        else {
          try {
            PACKAGE_PROJECTS[name].seed(project);
            const installed = await npm(INSTALL_ARGS(outcome.tarball), project);
            prepared = 'stdout' in installed ? { ok: true } : installed;
          } catch (err) {
            prepared = { error: err instanceof Error ? err.message : String(err) };
          }
        }
        writeFileSync(markerOf(project), JSON.stringify(prepared));
      })();
    }
  })();
  return {
    done: work,
    stop: async () => {
      stopped = true;
      for (const child of live) {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone between its exit and this signal.
        }
      }
      await work;
    },
  };
}

/**
 * From a package test: makes `target` (an empty directory) the project `name` with the packed
 * engine installed: the one the global setup prepared, moved here, or else made here.
 */
export async function projectWithEngine(name: PackageProject, target: string): Promise<void> {
  const prepared = join(packDir(), name);
  if (existsSync(prepared)) {
    const marker = markerOf(prepared);
    const outcome = await waitUntil(
      async () => (existsSync(marker) ? (JSON.parse(readFileSync(marker, 'utf8')) as Prepared) : undefined),
      `the prepared ${name} project`,
      {
        timeoutMs: 300_000,
        everyMs: 250,
      },
    );
    if ('ok' in outcome) {
      try {
        renameSync(prepared, target);
        return;
      } catch (err) {
        // Taken by an earlier run of the same file (watch mode): made here instead.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  }
  PACKAGE_PROJECTS[name].seed(target);
  installInto(target, await packedEngine());
}
