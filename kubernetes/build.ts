// Builds the Kubernetes control plane's binaries from the Go module proxy, once: kube-apiserver,
// kube-controller-manager and kube-scheduler from the module in kubernetes/go/ (k8s.io/kubernetes,
// pinned there with its go.sum), and kwok from sigs.k8s.io/kwok at its pinned version. They land
// in .temporal/kubernetes/bin/ under versioned names and every later start reuses them. A cold
// build takes many minutes, so it is never implicit in `npm test`; only
// `npm run kubernetes -- build|start` and `npm run test:kubernetes` do it.
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { binaries, binDir, buildLogFile, goModuleDir, KUBERNETES_VERSION, KWOK_VERSION, kubernetesRoot } from './paths.js';
import type { Log } from '../temporal-dev/log.js';

export class KubernetesBuildError extends Error {
  constructor(
    message: string,
    readonly logFile: string,
  ) {
    super(`${message} (full output in ${logFile})`);
    this.name = 'KubernetesBuildError';
  }
}

/** What `kubernetes version` answers: without these the binaries call themselves v0.0.0-master. */
const [major, minor] = KUBERNETES_VERSION.slice(1).split('.');
const versionFlags = ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'].flatMap((pkg) => [
  `-X ${pkg}.gitVersion=${KUBERNETES_VERSION}`,
  `-X ${pkg}.gitMajor=${major}`,
  `-X ${pkg}.gitMinor=${minor}`,
  `-X ${pkg}.gitTreeState=clean`,
]);

interface Group {
  name: string;
  /** The built file's name in the stage folder, and where it goes. */
  outputs: Array<{ built: string; as: string }>;
  /** The Go module's folder for the module's tools; any folder outside a module for `go install pkg@version`. */
  cwd: string;
  args: (stage: string) => string[];
  env: (stage: string) => NodeJS.ProcessEnv;
  /** Runs after go, before anything is moved into place. */
  after?: (stage: string, env: NodeJS.ProcessEnv) => void;
}

const GROUPS: Group[] = [
  {
    name: `Kubernetes ${KUBERNETES_VERSION}`,
    outputs: [
      { built: 'kube-apiserver', as: binaries.apiserver },
      { built: 'kube-controller-manager', as: binaries.controllerManager },
      { built: 'kube-scheduler', as: binaries.scheduler },
    ],
    // `go build` in the checked-in module: its go.sum pins every dependency.
    cwd: goModuleDir,
    args: (stage) => [
      'build',
      '-p',
      '2',
      '-trimpath',
      `-ldflags=-s -w ${versionFlags.join(' ')}`,
      '-o',
      `${stage}/`,
      'k8s.io/kubernetes/cmd/kube-apiserver',
      'k8s.io/kubernetes/cmd/kube-controller-manager',
      'k8s.io/kubernetes/cmd/kube-scheduler',
    ],
    env: () => ({}),
  },
  {
    name: `kwok ${KWOK_VERSION}`,
    outputs: [
      { built: 'kwok', as: binaries.kwok },
      { built: 'kwok-stages.yaml', as: binaries.kwokStages },
    ],
    // kwok's own go.mod has no replace directives, so `go install pkg@version` builds it as pinned.
    cwd: kubernetesRoot,
    args: () => ['install', '-p', '2', '-trimpath', '-ldflags=-s -w', `sigs.k8s.io/kwok/cmd/kwok@${KWOK_VERSION}`],
    env: (stage) => ({ GOBIN: stage }),
    after: writeKwokStages,
  },
];

export function binariesBuilt(): boolean {
  return GROUPS.every((g) => g.outputs.every((o) => existsSync(o.as)));
}

/** Builds what is missing; returns how long it took (0 when every binary was already there). */
export async function ensureBinaries(log: Log): Promise<{ built: boolean; seconds: number }> {
  const missing = GROUPS.filter((g) => !g.outputs.every((o) => existsSync(o.as)));
  if (missing.length === 0) {
    log(`Kubernetes ${KUBERNETES_VERSION} and kwok ${KWOK_VERSION} already built in ${binDir}`);
    return { built: false, seconds: 0 };
  }
  mkdirSync(binDir, { recursive: true });
  mkdirSync(kubernetesRoot, { recursive: true });
  const started = Date.now();
  const out = createWriteStream(buildLogFile);
  try {
    for (const group of missing) await buildGroup(group, out, log);
  } finally {
    out.end();
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  log(`built ${missing.map((g) => g.name).join(' and ')} in ${seconds} s`);
  return { built: true, seconds };
}

async function buildGroup(group: Group, out: WriteStream, log: Log): Promise<void> {
  // Built into a folder of its own and moved into place at the end, so a build cut short never
  // leaves a binary that looks finished.
  const stage = join(binDir, `.stage-${process.pid}`);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage);
  const args = group.args(stage);
  log(`building ${group.name} from the Go module proxy (go ${args.join(' ')}); a cold build takes many minutes, output in ${buildLogFile}`);
  out.write(`== go ${args.join(' ')}\n`);
  const env = {
    ...process.env,
    ...group.env(stage),
    GOMAXPROCS: '2',
    GOTOOLCHAIN: 'local',
    GOFLAGS: `${process.env.GOFLAGS ?? ''} -buildvcs=false`.trim(),
  };
  const code = await new Promise<number | null>((resolve, reject) => {
    // Two compile jobs and two threads at most: the machine is shared, and a test run beside the
    // build should still get a core.
    const child = spawn('go', args, {
      cwd: group.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    child.once('error', (err) => reject(new KubernetesBuildError(`could not run go (${err.message}); install Go >= 1.26 or put it on PATH`, buildLogFile)));
    child.once('close', resolve);
  }).catch((err: unknown) => {
    rmSync(stage, { recursive: true, force: true });
    throw err;
  });
  if (code !== 0) {
    rmSync(stage, { recursive: true, force: true });
    throw new KubernetesBuildError(`building ${group.name}: go exited ${code}`, buildLogFile);
  }
  group.after?.(stage, env);
  for (const o of group.outputs) renameSync(join(stage, o.built), o.as);
  rmSync(stage, { recursive: true, force: true });
}

/**
 * The kwok command simulates nothing without stages, and its binary carries none: kwokctl writes
 * them into its config. These are kwokctl's defaults for a cluster with node leases, read from
 * the same pinned module the binary was built from.
 */
const KWOK_STAGES = [
  'node/fast/node-initialize.yaml',
  'node/heartbeat-with-lease/node-heartbeat-with-lease.yaml',
  'pod/fast/pod-ready.yaml',
  'pod/fast/pod-complete.yaml',
  'pod/fast/pod-delete.yaml',
];

function writeKwokStages(stage: string, env: NodeJS.ProcessEnv): void {
  const download = JSON.parse(
    execFileSync('go', ['mod', 'download', '-json', `sigs.k8s.io/kwok@${KWOK_VERSION}`], { cwd: kubernetesRoot, env, encoding: 'utf8' }),
  ) as { Dir?: string };
  if (!download.Dir) throw new KubernetesBuildError(`go mod download named no folder for sigs.k8s.io/kwok@${KWOK_VERSION}`, buildLogFile);
  const dir = download.Dir;
  const stages = KWOK_STAGES.map((file) => readFileSync(join(dir, 'kustomize', 'stage', file), 'utf8').trim());
  writeFileSync(join(stage, 'kwok-stages.yaml'), `${stages.join('\n---\n')}\n`);
}
