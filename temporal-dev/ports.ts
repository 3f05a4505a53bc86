// Loopback ports for the processes we start (the dev server, Prometheus, Alertmanager, the demo's
// services): one chosen free by the OS, or whether a given one is free now. Either answer holds
// only until someone else binds the port, which is why the starters try again when it was taken,
// and why they ask, once something answers there, whether it is the process they started.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { processes } from './proc-stat.js';

const HOST = '127.0.0.1';

/** A TCP port on 127.0.0.1 nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether nobody listens on `port` of 127.0.0.1 right now. */
export async function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

/**
 * Whether `pid` (or a process it started) is what listens on TCP `port`, as Linux's /proc says:
 * a readiness check answered on a port says only that *something* serves there, and a port taken
 * between our choosing it and our child binding it is answered by whoever took it. Undefined where
 * /proc cannot say (another OS, no permission): the caller goes by the answer alone, as before.
 */
export function listensOn(pid: number, port: number): boolean | undefined {
  const listening = listeningSockets(port);
  if (listening === undefined) return undefined;
  let sawFds = false;
  for (const member of withDescendants(pid)) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${member}/fd`);
    } catch {
      continue;
    }
    sawFds = true;
    for (const fd of fds) {
      const socket = /^socket:\[(\d+)\]$/.exec(readLink(`/proc/${member}/fd/${fd}`));
      if (socket && listening.has(socket[1] as string)) return true;
    }
  }
  return sawFds ? false : undefined;
}

/** The inodes of the sockets listening on `port`, IPv4 and IPv6 (state 0A in /proc/net/tcp*). */
function listeningSockets(port: number): Set<string> | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  let read = false;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    read = true;
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (state === '0A' && local?.endsWith(`:${hexPort}`) && inode) inodes.add(inode);
    }
  }
  return read ? inodes : undefined;
}

/** `pid` and every process below it, from each process's parent (proc-stat.ts). */
function withDescendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const { pid: child, stat } of processes()) {
    const siblings = children.get(stat.ppid);
    if (siblings) siblings.push(child);
    else children.set(stat.ppid, [child]);
  }
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...(children.get(all[i] as number) ?? []));
  return all;
}

function readLink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}
