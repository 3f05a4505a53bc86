// The engine as a team gets it: `npm pack` (which builds first, through prepack) and an
// `npm install` of the tarball into a project outside this repository. Several test files need
// the tarball; packing twice at once would have two builds writing dist/ together, so the first
// file to ask packs, once per test run, into the run's scratch directory (global setup removes
// it), and the others wait for it (oncePerRun).
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { oncePerRun } from '../support/once-per-run.js';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The path of this test run's packed engine, packing it if no other file has. */
export async function packedEngine(): Promise<string> {
  // Global setup's scratch directory: one per test run, removed when the run ends.
  const dir = join(dirname(inject('approversFile')), 'packed-engine');
  mkdirSync(dir, { recursive: true });
  const { tarball } = await oncePerRun(
    dir,
    'pack',
    async () => {
      try {
        const out = execFileSync('npm', ['pack', '--pack-destination', dir, '--silent'], {
          cwd: repoRoot,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        return { tarball: join(dir, out.trim().split('\n').at(-1) ?? '') };
      } catch (err) {
        // The build's own words (a type error, say), not only "Command failed".
        const e = err as { message?: string; stdout?: string; stderr?: string };
        throw new Error(`${e.message ?? String(err)}\n${(e.stdout ?? '').slice(-2_000)}${(e.stderr ?? '').slice(-2_000)}`);
      }
    },
    // A build on a loaded two-core host takes minutes.
    240_000,
  );
  return tarball;
}

/** Installs the packed engine (and whatever else the project's package.json lists) into `project`. */
export function installInto(project: string, tarball: string, extra: string[] = []): void {
  execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--silent', tarball, ...extra], { cwd: project, stdio: 'ignore' });
}
