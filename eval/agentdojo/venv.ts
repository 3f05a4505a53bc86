// Why this exists: AgentDojo (its suites, tools and judges) is Python. It is installed on first use
// into a git-ignored, project-local virtual environment (.agentdojo/venv), pinned, the way the
// Temporal CLI is installed into .temporal/ (temporal-dev/cli.ts): the system Python is only used
// to create the venv, never installed into. The venv is built in a scratch folder and renamed into
// place, so two processes racing here never see a half-installed one.
import { execFileSync } from 'node:child_process';
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../temporal-dev/paths.js';
import type { Log } from '../../temporal-dev/log.js';

export const AGENTDOJO_VERSION = '0.1.35';
export const agentdojoDir = join(projectRoot, '.agentdojo');
export const venvDir = join(agentdojoDir, 'venv');
const marker = (dir: string) => join(dir, `.installed-agentdojo-${AGENTDOJO_VERSION}`);
export const venvPython = join(venvDir, 'bin', 'python');

/** The venv's python with agentdojo installed, installing it first when missing; or why it could not be. */
export function ensureAgentDojo(log: Log): { python: string } | { error: string } {
  if (existsSync(marker(venvDir)) && existsSync(venvPython)) return { python: venvPython };
  const python = ['python3', 'python'].find(runs);
  if (!python) return { error: 'no python3 or python on PATH to create the AgentDojo venv' };
  const scratch = `${venvDir}.installing-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  log(`installing agentdojo==${AGENTDOJO_VERSION} into ${venvDir} (project-local venv, not the system Python; about 300 MB, once)`);
  try {
    execFileSync(python, ['-m', 'venv', scratch], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 5 * 60_000 });
    execFileSync(join(scratch, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `agentdojo==${AGENTDOJO_VERSION}`], {
      stdio: ['ignore', 'inherit', 'inherit'],
      timeout: 20 * 60_000,
      env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' },
    });
    writeFileSync(marker(scratch), `agentdojo==${AGENTDOJO_VERSION}\n`);
  } catch (err) {
    rmSync(scratch, { recursive: true, force: true });
    return { error: `pip install of agentdojo==${AGENTDOJO_VERSION} failed: ${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)}` };
  }
  if (existsSync(marker(venvDir))) {
    rmSync(scratch, { recursive: true, force: true }); // someone else finished first
  } else {
    try {
      rmSync(venvDir, { recursive: true, force: true }); // a broken earlier install
      // A venv's bin/python is a symlink to the base interpreter and the bridge runs `python
      // bridge.py`, so the rename is safe (only the console scripts' shebangs name the scratch path).
      renameSync(scratch, venvDir);
    } catch {
      rmSync(scratch, { recursive: true, force: true });
      if (!existsSync(marker(venvDir))) return { error: `could not move the installed venv into ${venvDir}` };
    }
  }
  log(`installed agentdojo==${AGENTDOJO_VERSION} at ${venvDir}`);
  return { python: venvPython };
}

function runs(command: string): boolean {
  try {
    execFileSync(command, ['--version'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}
