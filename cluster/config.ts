// The server's configuration, written once per cluster: one file that all four services read,
// each process starting only its own service. Every port is chosen free on loopback when the
// cluster is created and kept for its life, so a killed service restarts where its peers (and
// the membership ring, which lives in PostgreSQL) expect it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { freePort, isPortFree } from '../temporal-dev/ports.js';

export const SERVICES = ['history', 'matching', 'frontend', 'worker'] as const;
export const ServiceName = z.enum(SERVICES);
export type ServiceName = z.infer<typeof ServiceName>;

export const ServicePorts = z.object({ grpc: z.number().int(), membership: z.number().int() });
export const ClusterPorts = z.object({
  postgres: z.number().int(),
  frontendHttp: z.number().int(),
  services: z.record(ServiceName, ServicePorts),
});
export type ClusterPorts = z.infer<typeof ClusterPorts>;

/**
 * More than the dev server's 1: with 4 shards, runs spread over several shards, so a history
 * restart moves shard ownership the way it does in production.
 */
export const HISTORY_SHARDS = 4;
export const HOST = '127.0.0.1';
/** The database superuser initdb creates; loopback connections are trusted (a local test cluster). */
export const DB_USER = 'temporal';

/** Below the kernel's ephemeral range (32768 and up) and below smallint's limit. */
const MEMBERSHIP_PORTS = { from: 20_000, to: 32_000 };

export async function allocatePorts(): Promise<ClusterPorts> {
  const taken = new Set<number>();
  const next = async (): Promise<number> => {
    for (;;) {
      const port = await freePort();
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  // The membership table stores a node's port as a smallint: a port above 32767 (every port the
  // kernel hands out as ephemeral) fails the service's first heartbeat. Those come from below.
  const nextMembership = async (): Promise<number> => {
    for (;;) {
      const port = MEMBERSHIP_PORTS.from + Math.floor(Math.random() * (MEMBERSHIP_PORTS.to - MEMBERSHIP_PORTS.from));
      if (!taken.has(port) && (await isPortFree(port))) {
        taken.add(port);
        return port;
      }
    }
  };
  const services = {} as Record<ServiceName, { grpc: number; membership: number }>;
  const postgres = await next();
  const frontendHttp = await next();
  for (const name of SERVICES) services[name] = { grpc: await next(), membership: await nextMembership() };
  return { postgres, frontendHttp, services };
}

export function frontendAddress(ports: ClusterPorts): string {
  return `${HOST}:${ports.services.frontend.grpc}`;
}

/** Writes config.yaml and dynamic-config.yaml into `dir`; returns the config file's path. */
export function writeServerConfig(dir: string, ports: ClusterPorts): string {
  const dynamicFile = join(dir, 'dynamic-config.yaml');
  writeFileSync(dynamicFile, dynamicConfig());
  const file = join(dir, 'config.yaml');
  writeFileSync(file, serverConfig(ports, dynamicFile));
  return file;
}

function datastore(database: string, port: number, maxConns: number): string {
  return `      sql:
        pluginName: postgres12
        databaseName: ${database}
        connectAddr: "${HOST}:${port}"
        connectProtocol: tcp
        user: ${DB_USER}
        password: ""
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: 1h`;
}

function serverConfig(ports: ClusterPorts, dynamicFile: string): string {
  const services = SERVICES.map((name) => {
    const p = ports.services[name];
    return `  ${name}:
    rpc:
      grpcPort: ${p.grpc}
      membershipPort: ${p.membership}
      bindOnIP: ${HOST}${name === 'frontend' ? `\n      httpPort: ${ports.frontendHttp}` : ''}`;
  }).join('\n');
  const frontend = frontendAddress(ports);
  // No metrics and no pprof: both listen on one fixed port per process, which four processes
  // sharing this file would fight over, and nothing here reads them.
  return `log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: ${HISTORY_SHARDS}
  datastores:
    default:
${datastore('temporal', ports.postgres, 20)}
    visibility:
${datastore('temporal_visibility', ports.postgres, 4)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "${HOST}"
  pprof:
    port: 0
services:
${services}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "${frontend}"
      httpAddress: "${HOST}:${ports.frontendHttp}"
dcRedirectionPolicy:
  policy: noop
archival:
  history:
    state: disabled
  visibility:
    state: disabled
namespaceDefaults:
  archival:
    history:
      state: disabled
    visibility:
      state: disabled
publicClient:
  hostPort: "${frontend}"
dynamicConfigClient:
  filepath: "${dynamicFile}"
  pollInterval: 10s
`;
}

/** What the CLI's dev server sets beyond the defaults, so both servers behave alike for the engine. */
function dynamicConfig(): string {
  return `# The engine's list, inbox and status read visibility often; the default of 10/s per namespace
# is a production guard the dev server also raises.
frontend.namespaceRPS.visibility:
  - value: 100
history.hostLevelCacheMaxSize:
  - value: 8096
`;
}
