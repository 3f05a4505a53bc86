// The AgentDojo venv (eval/agentdojo/venv.ts: a pip install of about 300 MB) is installed on a
// fresh clone by test/eval/agentdojo.test.ts's beforeAll, about a minute of one file spent
// waiting on pip. The global setup starts the same install here, in a child process, as the
// run starts, so it overlaps the server's start and the other files; when the AgentDojo file
// runs, ensureAgentDojo finds the venv installed. Should that file start first, it installs
// beside this one: venv.ts builds in a scratch folder per process and renames it into place,
// so the two never see a half-installed venv. Run as a script, this file is that child.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureAgentDojo, venvDir } from '../../eval/agentdojo/venv.js';
import { projectRoot } from '../../temporal-dev/paths.js';

/** The one test file that uses the venv. */
export const AGENTDOJO_TEST = 'test/eval/agentdojo.test.ts';

/**
 * Starts the install in the background, logging through `log`. `stop` ends it if it is still
 * running (by its process group) and removes what it left half-built, then resolves.
 */
export function startAgentDojoInstall(log: (line: string) => void): { stop: () => Promise<void> } {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    cwd: projectRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<void>((resolve) => {
    child.once('error', (err) => {
      log(`the early AgentDojo install did not start (${err.message}); its test file installs it`);
      resolve();
    });
    child.once('close', (code) => {
      // A failure is only logged: the test file tries again and reports what it finds.
      if (code !== 0 && code !== null) log(`the early AgentDojo install failed (exit ${code}); its test file tries again:\n${output.slice(-2_000)}`);
      resolve();
    });
  });
  return {
    stop: async () => {
      if (pid !== undefined && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // Already gone between the check and the signal.
        }
        await exited;
        // The scratch folder venv.ts was filling for this process (it names it by its pid).
        rmSync(`${venvDir}.installing-${pid}`, { recursive: true, force: true });
      }
      await exited;
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const installed = ensureAgentDojo((line) => process.stdout.write(`${line}\n`));
  if ('error' in installed) {
    process.stderr.write(`${installed.error}\n`);
    process.exit(1);
  }
}
