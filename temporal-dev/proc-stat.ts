// One process's line in Linux's /proc/<pid>/stat, read: its command name, its parent and the CPU
// time it has used; and every process's. The bench finds and meters the dev server with it, and
// the starters (ports.ts) find the processes a child started.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcStat {
  comm: string;
  ppid: number;
  cpuMs: number;
}

// Linux reports utime/stime in clock ticks; USER_HZ is 100 on every platform Node runs on.
const TICK_MS = 10;

/** Undefined when there is no such process, or no /proc to ask. */
export function procStat(pid: number): ProcStat | undefined {
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

/** Every process /proc shows, with its stat line; none where there is no /proc to ask. */
export function processes(): Array<{ pid: number; stat: ProcStat }> {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: Array<{ pid: number; stat: ProcStat }> = [];
  for (const entry of entries) {
    const stat = /^\d+$/.test(entry) ? procStat(Number(entry)) : undefined;
    if (stat) out.push({ pid: Number(entry), stat });
  }
  return out;
}
