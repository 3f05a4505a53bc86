// The command line of each Kubernetes component, and nothing else: which flags make the API
// server, the controller manager, the scheduler and kwok one private control plane on
// loopback. Every port is chosen by the caller (free ports) or turned off, so two control planes
// on one host never meet; every file is in the control plane's own folder.
import { join } from 'node:path';
import type { Credentials } from './credentials.js';
import { binaries } from './paths.js';

export interface Layout {
  dir: string;
  etcdUrl: string;
  apiserverPort: number;
  credentials: Credentials;
  /** Written after the API server serves: it needs the server's certificate. */
  kubeconfig: string;
}

/** Where the API server writes its self-signed serving certificate (with its CA) and key. */
export const certDir = (dir: string) => join(dir, 'certs');
export const servingCertFile = (dir: string) => join(certDir(dir), 'apiserver.crt');
/** The range Services get cluster IPs from; nothing routes it, nothing needs to. */
export const SERVICE_CIDR = '10.96.0.0/16';

export interface CommandLine {
  name: 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler' | 'kwok';
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
}

export function apiserver(layout: Layout): CommandLine {
  const { credentials } = layout;
  return {
    name: 'kube-apiserver',
    command: binaries.apiserver,
    args: [
      `--etcd-servers=${layout.etcdUrl}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${layout.apiserverPort}`,
      // The address the `kubernetes` Service's endpoints name. It may not be loopback (the
      // Endpoints validation refuses it) and nothing here dials it; from TEST-NET-2, so no one's.
      '--advertise-address=198.51.100.1',
      // No --tls-cert-file: the server makes a self-signed certificate (and its CA) here, for
      // 127.0.0.1 among others, and clients trust that file.
      `--cert-dir=${certDir(layout.dir)}`,
      `--token-auth-file=${credentials.tokenFile}`,
      '--authorization-mode=RBAC',
      `--service-account-key-file=${credentials.serviceAccountPublicKey}`,
      `--service-account-signing-key-file=${credentials.serviceAccountKey}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      '--allow-privileged=true',
      '--profiling=false',
      // Watch-list streams need etcd's progress notifications, which Debian's etcd 3.4 lacks:
      // the server would end every such watch with an error, and kwok (client-go 0.36, where
      // clients ask for them by default) would then see pods only at each relist, tens of
      // seconds apart. Off, a client's watch-list request is refused up front and it falls
      // back to list-and-watch at once.
      '--feature-gates=WatchList=false',
    ],
  };
}

/**
 * A leader that cannot renew its lease within the renew deadline exits (the default is 10 s). The
 * API server being away is the only way that happens here (each control plane has one candidate
 * of each), and a test restarts it on purpose (ControlPlane.restart): a minute of patience keeps
 * the controller manager and the scheduler through a restart on a loaded host.
 */
const LEADER_ELECTION_PATIENCE = ['--leader-elect-lease-duration=75s', '--leader-elect-renew-deadline=60s', '--leader-elect-retry-period=2s'];

export function controllerManager(layout: Layout): CommandLine {
  return {
    name: 'kube-controller-manager',
    command: binaries.controllerManager,
    args: [
      `--kubeconfig=${layout.kubeconfig}`,
      // No HTTPS endpoint of its own (its default port, 10257, would collide between two
      // control planes); we see it work through the API instead: its leader Lease, the default
      // ServiceAccount its serviceaccount controller makes.
      '--secure-port=0',
      '--leader-elect=true',
      ...LEADER_ELECTION_PATIENCE,
      `--service-account-private-key-file=${layout.credentials.serviceAccountKey}`,
      `--root-ca-file=${servingCertFile(layout.dir)}`,
      // Its informers would ask for watch-list streams first and log an error for each refusal
      // (see the API server's WatchList=false) before falling back; they list-and-watch directly.
      '--feature-gates=WatchListClient=false',
      '--profiling=false',
    ],
  };
}

export function scheduler(layout: Layout): CommandLine {
  return {
    name: 'kube-scheduler',
    command: binaries.scheduler,
    args: [`--kubeconfig=${layout.kubeconfig}`, '--secure-port=0', '--leader-elect=true', ...LEADER_ELECTION_PATIENCE, '--profiling=false'],
  };
}

/** The stages kwok plays: nodes become Ready and keep their leases, pods become Running. */
export function kwok(layout: Layout): CommandLine {
  return {
    name: 'kwok',
    command: binaries.kwok,
    args: [
      `--kubeconfig=${layout.kubeconfig}`,
      `--config=${binaries.kwokStages}`,
      '--manage-all-nodes=true',
      // It renews each node's Lease, so the node lifecycle controller sees live kubelets.
      '--node-lease-duration-seconds=40',
    ],
    // kwok also reads ~/.kwok/kwok.yaml when it exists: a person's own kwok setup stays out.
    env: { ...process.env, HOME: layout.dir },
  };
}
