// Process-level meters: CPU time of this process (worker threads and the SDK's Rust core
// included) and of the dev server we started, and a resident-memory sampler. CPU time is
// reported next to wall time because on a shared two-core machine wall time moves with
// whatever else runs, while CPU spent per turn is what the engine itself costs.
import { processes, procStat } from '../temporal-dev/proc-stat.js';

/** The dev server child we started (a `temporal` process whose parent is us), if any. */
export function findServerPid(): number | undefined {
  return processes().find(({ stat }) => stat.ppid === process.pid && stat.comm === 'temporal')?.pid;
}

export interface CpuSample {
  workerMs: number;
  serverMs: number | undefined;
}

export function cpuNow(serverPid: number | undefined): CpuSample {
  const own = process.cpuUsage();
  return {
    workerMs: (own.user + own.system) / 1_000,
    serverMs: serverPid === undefined ? undefined : procStat(serverPid)?.cpuMs,
  };
}

export function cpuSince(start: CpuSample, serverPid: number | undefined): CpuSample {
  const now = cpuNow(serverPid);
  return {
    workerMs: now.workerMs - start.workerMs,
    serverMs: now.serverMs === undefined || start.serverMs === undefined ? undefined : now.serverMs - start.serverMs,
  };
}

/** Samples this process's RSS every `everyMs`; `peak()` is the largest since the last `reset()`. */
export function rssSampler(everyMs = 100): { peak(): number; reset(): void; stop(): void } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, everyMs);
  timer.unref();
  return {
    peak: () => Math.max(peak, process.memoryUsage().rss),
    reset: () => {
      peak = process.memoryUsage().rss;
    },
    stop: () => clearInterval(timer),
  };
}

export const mib = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;
