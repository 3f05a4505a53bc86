// One Temporal service as one OS process: `temporal-server start --service <name>` on the
// cluster's shared config. Separate processes are the point: a history or matching process can
// be SIGKILLed and started again while the others keep serving, as in production.
import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HOST, type ServiceName } from './config.js';
import { serverBinary } from './paths.js';
import { isRunning, startProcess } from './processes.js';
import type { ClusterState, ProcessEntry } from './state.js';

export class ServiceStartError extends Error {
  constructor(
    service: ServiceName,
    detail: string,
    readonly logFile: string,
  ) {
    super(`Temporal ${service} service ${detail} (see ${logFile})`);
    this.name = 'ServiceStartError';
  }
}

export function serviceLog(dir: string, service: ServiceName): string {
  const logs = join(dir, 'logs');
  mkdirSync(logs, { recursive: true });
  return join(logs, `${service}.log`);
}

/** Starts the service's process and resolves once its gRPC port accepts connections. */
export async function startService(state: Pick<ClusterState, 'dir' | 'configFile' | 'ports'>, service: ServiceName): Promise<ProcessEntry> {
  const logFile = serviceLog(state.dir, service);
  const pid = await startProcess({
    command: serverBinary,
    args: ['--config-file', state.configFile, '--allow-no-auth', 'start', '--service', service],
    logFile,
    cwd: state.dir,
  });
  const entry = { pid, program: serverBinary };
  const port = state.ports.services[service].grpc;
  // A service opens its port after it joined the membership ring and loaded what it needs; the
  // first start (shards to create, a ring to form) is the slow one.
  const deadline = Date.now() + 120_000;
  while (!(await accepts(port))) {
    if (!isRunning(pid, serverBinary)) throw new ServiceStartError(service, `exited during start-up`, logFile);
    if (Date.now() > deadline) throw new ServiceStartError(service, `did not listen on ${HOST}:${port} within 120 s`, logFile);
    await sleep(250);
  }
  return entry;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: HOST, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
