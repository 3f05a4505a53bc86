// The bench's side of the parked-runs worker (bench/parked-worker.ts): starts it as a child
// process, keeps its latest memory report, and reads Core's sticky-cache figures from its
// Prometheus endpoint, so the section can say how full the cache is when it samples memory.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { projectRoot } from '../temporal-dev/paths.js';
import { freePort } from '../temporal-dev/ports.js';

const script = fileURLToPath(new URL('./parked-worker.ts', import.meta.url));

/** What the worker prints once a second (bytes; `at` is its clock in ms). */
export const MemoryReport = z.object({ at: z.number(), rss: z.number(), heapUsed: z.number(), heapTotal: z.number(), external: z.number() });
export type MemoryReport = z.infer<typeof MemoryReport>;

/** What the worker says once it is polling. */
export const ReadyReport = z.object({
  pid: z.number().int(),
  maxCachedWorkflows: z.number().int(),
  cacheOverridden: z.boolean(),
  heapSizeLimitMiB: z.number(),
  memory: MemoryReport,
});
export type ReadyReport = z.infer<typeof ReadyReport>;

export interface CacheFigures {
  /** Runs held in the sticky cache now. */
  size: number;
  /** Runs pushed out of a full cache so far. */
  forcedEvictions: number;
  /** Workflow tasks that found their run cached, and that did not (a replay), so far. */
  hits: number;
  misses: number;
}

export interface ParkedWorker {
  ready: ReadyReport;
  /** The latest memory report. */
  memory(): MemoryReport;
  cache(): Promise<CacheFigures>;
  stop(): Promise<void>;
}

export class ParkedWorkerFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ParkedWorkerFailed';
  }
}

export async function startParkedWorker(options: {
  address: string;
  namespace: string;
  taskQueue: string;
  approversFile: string;
  bundleFile: string;
  maxCached?: number;
}): Promise<ParkedWorker> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: projectRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: options.address,
      TEMPORAL_NAMESPACE: options.namespace,
      AGENT_TASK_QUEUE: options.taskQueue,
      AGENT_APPROVERS_FILE: options.approversFile,
      PARKED_WORKFLOW_BUNDLE: options.bundleFile,
      PARKED_METRICS_ADDRESS: `127.0.0.1:${port}`,
      ...(options.maxCached ? { PARKED_MAX_CACHED: String(options.maxCached) } : {}),
    },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4_000)));
  let latest: MemoryReport | undefined;
  const ready = await new Promise<ReadyReport>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new ParkedWorkerFailed(`the parked-runs worker was not ready within 120 s:\n${stderr}`));
    }, 120_000);
    let buffer = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.startsWith('PARKED_READY ')) {
          clearTimeout(timer);
          const report = ReadyReport.parse(JSON.parse(line.slice('PARKED_READY '.length)));
          latest = report.memory;
          resolve(report);
        } else if (line.startsWith('PARKED_MEMORY ')) latest = MemoryReport.parse(JSON.parse(line.slice('PARKED_MEMORY '.length)));
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new ParkedWorkerFailed(`the parked-runs worker exited before it was ready:\n${stderr}`));
    });
  });
  return {
    ready,
    memory: () => latest ?? ready.memory,
    cache: () => scrapeCache(`http://127.0.0.1:${port}/metrics`),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Sums each sticky-cache series (Core labels them per worker; this process has one worker). */
async function scrapeCache(url: string): Promise<CacheFigures> {
  const text = await (await fetch(url, { signal: AbortSignal.timeout(5_000) })).text();
  const sum = (name: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
      .reduce((n, line) => n + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  return {
    size: sum('temporal_sticky_cache_size'),
    forcedEvictions: sum('temporal_sticky_cache_total_forced_eviction'),
    hits: sum('temporal_sticky_cache_hit'),
    misses: sum('temporal_sticky_cache_miss'),
  };
}

/** Resident memory of another process (the dev server), from /proc; undefined if it is gone. */
export function rssOfPid(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib ? Number(kib) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
