// The control plane's storage: Debian's etcd (the etcd-server package), one single-member
// cluster per control plane on two free loopback ports with its data in the control plane's
// own folder. Found at ETCD_PATH or /usr/bin/etcd, else installed with apt-get when we are
// root, else one line saying what to run; never a silent skip.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startChild, type Child } from './process.js';
import { waitFor } from './wait.js';
import { isExecutable } from '../temporal-dev/executable.js';

export const DEFAULT_ETCD_PATH = '/usr/bin/etcd';
export const APT_INSTALL_ETCD = 'apt-get update -qq && apt-get install -y -qq etcd-server';

export class EtcdMissingError extends Error {
  constructor(instruction: string) {
    super(`the Kubernetes control plane needs etcd: ${instruction}`);
    this.name = 'EtcdMissingError';
  }
}

/** The etcd binary to run, installing Debian's package first when it is missing and we may. */
export function provisionEtcd(log: (line: string) => void, env: NodeJS.ProcessEnv = process.env): string {
  const named = env.ETCD_PATH?.trim();
  const path = named || DEFAULT_ETCD_PATH;
  if (isExecutable(path)) return path;
  if (named) throw new EtcdMissingError(`ETCD_PATH=${named} is not an executable; point it at one or unset it to use Debian's package`);
  if (process.getuid?.() !== 0) throw new EtcdMissingError(`no ${path}: run \`sudo sh -c '${APT_INSTALL_ETCD}'\` (or set ETCD_PATH), then run again`);
  log(`no ${path}; installing: ${APT_INSTALL_ETCD}`);
  try {
    execFileSync('sh', ['-c', `${APT_INSTALL_ETCD} >/dev/null`], {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 15 * 60_000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } catch (err) {
    const last = (err as { stderr?: Buffer }).stderr?.toString().trim().split('\n').at(-1);
    throw new EtcdMissingError(`\`${APT_INSTALL_ETCD}\` failed (${last || 'see its output'}); run it by hand, then run again`);
  }
  if (!isExecutable(path)) throw new EtcdMissingError(`\`${APT_INSTALL_ETCD}\` ran but left no executable at ${path}`);
  return path;
}

export interface EtcdOptions {
  binary: string;
  dir: string;
  clientPort: number;
  peerPort: number;
}

/** Starts etcd and resolves once it answers /health as healthy. */
export async function startEtcd(options: EtcdOptions): Promise<Child & { url: string }> {
  const host = '127.0.0.1';
  const url = `http://${host}:${options.clientPort}`;
  const peer = `http://${host}:${options.peerPort}`;
  const child = await startChild({
    name: 'etcd',
    command: options.binary,
    args: [
      '--name=control-plane',
      `--data-dir=${join(options.dir, 'etcd')}`,
      `--listen-client-urls=${url}`,
      `--advertise-client-urls=${url}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=control-plane=${peer}`,
      '--initial-cluster-state=new',
      // Unique per control plane, so two on one host can never take each other for a peer.
      `--initial-cluster-token=${options.dir}`,
      '--logger=zap',
      '--log-outputs=stderr',
      '--auto-compaction-mode=periodic',
      '--auto-compaction-retention=1h',
    ],
    logFile: join(options.dir, 'etcd.log'),
  });
  try {
    await waitFor(child, 'etcd to answer /health', async () => {
      const answer = await fetch(`${url}/health`).catch(() => undefined);
      if (!answer?.ok) return false;
      const body = (await answer.json()) as { health?: string };
      return body.health === 'true';
    });
  } catch (err) {
    await child.stop();
    throw err;
  }
  return { ...child, url };
}
