// One process's line in Linux's /proc/<pid>/stat, read: its command name, its parent and the CPU
// time it has used. The bench meters the dev server's CPU with it, and the starters (ports.ts)
// find the processes a child started.
import { readFileSync } from 'node:fs';

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
