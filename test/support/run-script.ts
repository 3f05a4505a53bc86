// A script of this repository run to its end in a fresh Node process (with tsx, from the project
// root), as a person runs `npm run cli` or the seed command: what it printed and how it exited.
// The CLI, seed and dev-stack tests judge exactly that, so they share this one runner.
import { spawn } from 'node:child_process';
import { projectRoot } from '../../temporal-dev/paths.js';

export interface ScriptResult {
  /** The exit code; null when a signal ended the process. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `script` (a path from the project root) with `args` and resolves when it has exited and
 * its output is closed. `env` is the child's whole environment: pass `{ ...process.env, ... }`
 * to add to this one, or a cleaned copy to keep settings of this process out.
 */
export function runScript(script: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<ScriptResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
