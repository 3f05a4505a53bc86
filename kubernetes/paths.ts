// Where the Kubernetes control plane keeps what it builds, all under the ignored
// .temporal/kubernetes/ folder: the binaries under versioned names (built once, reused by every
// later start), the build's log, and one scratch folder per running control plane.
import { join } from 'node:path';
import { projectRoot } from '../temporal-dev/paths.js';

/** kube-apiserver, kube-controller-manager and kube-scheduler; pinned in kubernetes/go/go.mod. */
export const KUBERNETES_VERSION = 'v1.34.2';
/** sigs.k8s.io/kwok: its `kwok` command plays the kubelet of fake nodes. */
export const KWOK_VERSION = 'v0.8.0';

export const kubernetesRoot = join(projectRoot, '.temporal', 'kubernetes');
export const binDir = join(kubernetesRoot, 'bin');
export const buildLogFile = join(kubernetesRoot, 'build.log');
/** The Go module whose tools are the control plane's binaries (go.mod and go.sum are checked in). */
export const goModuleDir = join(projectRoot, 'kubernetes', 'go');

export const binaries = {
  apiserver: join(binDir, `kube-apiserver-${KUBERNETES_VERSION}`),
  controllerManager: join(binDir, `kube-controller-manager-${KUBERNETES_VERSION}`),
  scheduler: join(binDir, `kube-scheduler-${KUBERNETES_VERSION}`),
  kwok: join(binDir, `kwok-${KWOK_VERSION}`),
  /** kwok's own stages (node-initialize, node heartbeat, pod ready/complete/delete), from its module. */
  kwokStages: join(binDir, `kwok-stages-${KWOK_VERSION}.yaml`),
} as const;

/** Control planes started by a test or `npm run kubernetes -- start`, each in its own folder. */
export const scratchParent = join(kubernetesRoot, 'scratch');
