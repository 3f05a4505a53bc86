// Why this exists: the bridge (bridge.py) is its own OS process, started and stopped by pid by
// whoever needs it (the runner, the test), with the project-local venv's python. Its stdout's
// first line says where it listens.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Log } from '../../temporal-dev/log.js';
import { ensureAgentDojo } from './venv.js';

export interface RunningBridge {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('./bridge.py', import.meta.url));
const READY_TIMEOUT_MS = 60_000;
const STDERR_KEEP_CHARS = 8_000;

export async function startBridge(log: Log): Promise<RunningBridge> {
  const venv = ensureAgentDojo(log);
  if ('error' in venv) throw new Error(venv.error);
  const child = spawn(venv.python, [SCRIPT, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // No __pycache__ beside the bridge's modules: a run leaves the clone as it found it.
    env: { ...process.env, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEEP_CHARS);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
  };
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`the AgentDojo bridge did not start within ${READY_TIMEOUT_MS} ms: ${stderr}`)), READY_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const m = /AGENTDOJO_BRIDGE_READY (\S+)/.exec(stdout);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the AgentDojo bridge exited before it listened: ${stderr}`));
    });
  }).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { url, pid: child.pid ?? -1, stop };
}
