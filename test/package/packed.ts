// The engine as a team gets it: `npm pack` (which builds first, through prepack) and an
// `npm install` of the tarball into a project outside this repository. Several test files need
// the tarball; packing twice at once would have two builds writing dist/ together, so it is
// packed once per test run, into the run's scratch directory (global setup removes it):
// usually by the global setup, in the background as the run starts (test/package/prepared.ts),
// otherwise by the first file to ask. Whoever creates the directory packs; the others wait for
// its `done` marker.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { waitUntil } from '../../client/wait.js';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Where a test run's packed engine goes, inside global setup's scratch directory. */
export const packDirIn = (scratch: string): string => join(scratch, 'packed-engine');

/** This test run's pack directory, from inside a test file. */
export const packDir = (): string => packDirIn(dirname(inject('approversFile')));

/** Claims `dir`: true for the one caller that created it, false when someone else did. */
export function claim(dir: string): boolean {
  try {
    mkdirSync(dir);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return false;
  }
}

/** `npm pack` into `dir`; npm prints the tarball's name last. */
export const PACK_ARGS = (dir: string): string[] => ['pack', '--pack-destination', dir, '--silent'];
export const tarballFrom = (dir: string, stdout: string): string => join(dir, stdout.trim().split('\n').at(-1) ?? '');

/** What the `done` marker holds: the tarball, or the build's own words (a type error, say). */
export type PackOutcome = { tarball: string } | { error: string };

/** The path of this test run's packed engine, packing it if neither the global setup nor another file has. */
export async function packedEngine(): Promise<string> {
  const dir = packDir();
  const done = join(dir, 'done');
  if (claim(dir)) {
    let result: PackOutcome;
    try {
      result = { tarball: tarballFrom(dir, execFileSync('npm', PACK_ARGS(dir), { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })) };
    } catch (err) {
      const e = err as { message?: string; stdout?: string; stderr?: string };
      result = { error: `${e.message ?? String(err)}\n${(e.stdout ?? '').slice(-2_000)}${(e.stderr ?? '').slice(-2_000)}` };
    }
    writeFileSync(done, JSON.stringify(result));
  }
  const result = await waitUntil(async () => (existsSync(done) ? (JSON.parse(readFileSync(done, 'utf8')) as PackOutcome) : undefined), 'the packed engine', {
    timeoutMs: 240_000,
    everyMs: 250,
  });
  if (!('tarball' in result)) throw new Error(`npm pack failed: ${result.error}`);
  return result.tarball;
}

/** `npm install` of the tarball (and whatever else the project's package.json lists). */
export const INSTALL_ARGS = (tarball: string, extra: string[] = []): string[] => [
  'install',
  '--prefer-offline',
  '--no-audit',
  '--no-fund',
  '--silent',
  tarball,
  ...extra,
];

/** Installs the packed engine (and whatever else the project's package.json lists) into `project`. */
export function installInto(project: string, tarball: string, extra: string[] = []): void {
  execFileSync('npm', INSTALL_ARGS(tarball, extra), { cwd: project, stdio: 'ignore' });
}
