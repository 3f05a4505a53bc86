// Process-level meters: CPU time of this process (worker threads and the SDK's Rust core
// included) and of the dev server we started, and a resident-memory sampler. CPU time is
// reported next to wall time because on a shared two-core machine wall time moves with
// whatever else runs, while CPU spent per turn is what the engine itself costs.
import { readdirSync, readFileSync } from 'node:fs';

/** The dev server child we started (a `temporal` process whose parent is us), if any. */
export function findServerPid(): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat && stat.ppid === process.pid && stat.comm === 'temporal') return Number(entry);
  }
  return undefined;
}

interface Stat {
  comm: string;
  ppid: number;
  cpuMs: number;
}

// Linux reports utime/stime in clock ticks; USER_HZ is 100 on every platform Node runs on.
const TICK_MS = 10;

function readStat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may contain spaces: split after the last ')'.
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    // fields[0] is field 3 (state); ppid is field 4, utime 14, stime 15.
    return { comm, ppid: Number(fields[1]), cpuMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS };
  } catch {
    return undefined;
  }
}

export interface CpuSample {
  workerMs: number;
  serverMs: number | undefined;
}

export function cpuNow(serverPid: number | undefined): CpuSample {
  const own = process.cpuUsage();
  return {
    workerMs: (own.user + own.system) / 1_000,
    serverMs: serverPid === undefined ? undefined : readStat(serverPid)?.cpuMs,
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
