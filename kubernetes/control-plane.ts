// A real Kubernetes control plane on loopback, for tests and for `npm run kubernetes --
// start`: etcd, kube-apiserver, kube-controller-manager (Deployments become ReplicaSets become
// pods), kube-scheduler (pods are placed on nodes) and kwok (fake nodes that report Ready and
// run every pod put on them), each its own process with its own log file, from the binaries
// built into .temporal/kubernetes/bin/. Each control plane has its own folder, free ports and
// fresh credentials, so two run side by side; stop() ends every child by its pid and removes
// the folder, and a test may crash the API server by its pid and start it again (kill, restart).
// Starting never builds: `npm run kubernetes -- build` (or `npm run test:kubernetes`) does.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { KubernetesApi, type KubernetesAccess } from './api.js';
import { binariesBuilt } from './build.js';
import { controllersCaughtUp } from './canary.js';
import { apiserver, controllerManager, kwok, scheduler, servingCertFile, type CommandLine, type Layout } from './components.js';
import { writeCredentials, writeKubeconfig } from './credentials.js';
import { provisionEtcd, startEtcd } from './etcd.js';
import { createFakeNodes } from './nodes.js';
import { binDir, KUBERNETES_VERSION, scratchParent } from './paths.js';
import { ChildStartError, startChild, type Child } from './process.js';
import { waitFor } from './wait.js';
import { paths, type Node } from './resources.js';
import { freePort } from '../temporal-dev/ports.js';
import { quietLog, type Log } from '../temporal-dev/log.js';

export type ComponentName = 'etcd' | CommandLine['name'];

export interface ControlPlaneOptions {
  /** How many kwok nodes to create (default 2). */
  nodes?: number;
  log?: Log;
}

export interface ControlPlane extends KubernetesAccess {
  /** The admin kubeconfig: `KUBECONFIG=<this> kubectl get pods -A` works. */
  kubeconfigPath: string;
  /** The API server's self-signed certificate and its CA (what `ca` holds), as a file. */
  caFile: string;
  dir: string;
  nodeNames: string[];
  /** The pid each component runs as now (the API server's changes on restart). */
  pids(): Record<ComponentName, number>;
  logFiles(): Record<ComponentName, string>;
  /** SIGKILLs the API server by its pid: a crash, not a shutdown. Its clients see refused connections. */
  kill(component: RestartableComponent): Promise<void>;
  /**
   * Starts the API server again (SIGKILLing it first if it still runs) on the same port, with the
   * same certificate and credentials, so every client's access still works; resolves once it
   * answers /readyz and the controllers act on it again (kubernetes/canary.ts: their watches back
   * off while it is away). Fails, naming its log, if a component that needs it exited meanwhile.
   */
  restart(component: RestartableComponent): Promise<void>;
  stop(): Promise<void>;
}

/** What a test may crash and start again: the API server (its clients, and etcd, stay up). */
export type RestartableComponent = 'kube-apiserver';

export class KubernetesNotBuiltError extends Error {
  constructor() {
    super(`the Kubernetes ${KUBERNETES_VERSION} binaries are not in ${binDir}: run \`npm run kubernetes -- build\` first (many minutes, once)`);
    this.name = 'KubernetesNotBuiltError';
  }
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const log = options.log ?? quietLog;
  if (!binariesBuilt()) throw new KubernetesNotBuiltError();
  const etcdBinary = provisionEtcd(log);
  mkdirSync(scratchParent, { recursive: true });
  removeAbandoned(log);
  for (let attempt = 1; ; attempt++) {
    // The owner's pid in the name: a folder whose owner is gone is removed by the next start.
    const dir = mkdtempSync(join(scratchParent, `cp-${process.pid}-`));
    try {
      return await startIn(dir, etcdBinary, options.nodes ?? 2, log);
    } catch (err) {
      // A free port is free when asked, not promised: another process may bind it before our
      // child does. That child then fails at once, saying so in its log; new ports, new folder.
      if (attempt >= 3 || !(err instanceof ChildStartError) || !portTaken(err.logFile)) throw err;
      log(`${err.component} found its port taken (${err.logFile}); starting again on other ports`);
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

async function startIn(dir: string, etcdBinary: string, nodes: number, log: Log): Promise<ControlPlane> {
  const children: Child[] = [];
  try {
    const { etcdClient, etcdPeer, apiserverPort } = await freePorts();
    const etcd = await startEtcd({ binary: etcdBinary, dir, clientPort: etcdClient, peerPort: etcdPeer });
    children.push(etcd);
    log(`etcd on ${etcd.url} (pid ${etcd.pid})`);

    const layout: Layout = { dir, etcdUrl: etcd.url, apiserverPort, credentials: writeCredentials(dir), kubeconfig: join(dir, 'kubeconfig') };
    const server = `https://127.0.0.1:${apiserverPort}`;
    const api = await startApiserver(layout, children, server);
    const access: KubernetesAccess = { server, token: layout.credentials.token, ca: readFileSync(servingCertFile(dir), 'utf8') };
    writeKubeconfig(layout.kubeconfig, access);
    log(`kube-apiserver ${KUBERNETES_VERSION} on ${server} (pid ${children[APISERVER]?.pid})`);
    try {
      const nodeNames = await startTheRest(layout, children, api, nodes, log);
      log(`control plane ready in ${dir}`);
      return handle({ ...access, kubeconfigPath: layout.kubeconfig, caFile: servingCertFile(dir), dir, nodeNames }, children, layout, log);
    } finally {
      api.close();
    }
  } catch (err) {
    // The folder stays, logs and all, for the error to point at; the next start removes it.
    await stopAll(children);
    throw err;
  }
}

/** Where the API server is in `children`: after etcd, before its clients (stopAll relies on the order). */
const APISERVER = 1;

/** Starts the API server in its place in `children` (the first time, or again after a crash) and waits for /readyz. */
async function startApiserver(layout: Layout, children: Child[], server: string): Promise<KubernetesApi> {
  const child = await start(apiserver(layout), layout.dir);
  children[APISERVER] = child;
  let api: KubernetesApi | undefined;
  await waitFor(
    child,
    `kube-apiserver to answer ${server}/readyz`,
    async () => {
      if (!api) {
        // The certificate is there before the server listens; until then there is nothing to ask.
        if (!existsSync(servingCertFile(layout.dir))) return false;
        api = new KubernetesApi({ server, token: layout.credentials.token, ca: readFileSync(servingCertFile(layout.dir), 'utf8') });
      }
      return (await api.getText('/readyz')).trim() === 'ok';
    },
    { also: children.slice(0, 1) },
  );
  if (!api) throw new Error('unreachable: readyz answered without a client');
  return api;
}

/** The controller manager, the scheduler and kwok, each waited on through what it does in the API. */
async function startTheRest(layout: Layout, children: Child[], api: KubernetesApi, nodes: number, log: Log): Promise<string[]> {
  const upstream = [...children];
  const manager = await start(controllerManager(layout), layout.dir);
  children.push(manager);
  const placer = await start(scheduler(layout), layout.dir);
  children.push(placer);
  const kubelets = await start(kwok(layout), layout.dir);
  children.push(kubelets);
  const nodeNames = await createFakeNodes(api, nodes);
  const also = { also: upstream };
  await waitFor(manager, 'its leader Lease kube-system/kube-controller-manager', () => leaseHeld(api, 'kube-controller-manager'), also);
  await waitFor(
    manager,
    'the ServiceAccount default/default (its serviceaccount controller)',
    () => exists(api, paths.serviceAccount('default', 'default')),
    also,
  );
  log(`kube-controller-manager running (pid ${manager.pid})`);
  await waitFor(placer, 'its leader Lease kube-system/kube-scheduler', () => leaseHeld(api, 'kube-scheduler'), also);
  log(`kube-scheduler running (pid ${placer.pid})`);
  for (const name of nodeNames) {
    await waitFor(kubelets, `node ${name} to report Ready`, async () => isReady(await api.get<Node>(`${paths.nodes()}/${name}`)), also);
  }
  log(`kwok running (pid ${kubelets.pid}) with ${nodeNames.length} Ready nodes: ${nodeNames.join(', ')}`);
  return nodeNames;
}

function handle(plane: Omit<ControlPlane, 'pids' | 'logFiles' | 'kill' | 'restart' | 'stop'>, children: Child[], layout: Layout, log: Log): ControlPlane {
  const byName = <T>(pick: (c: Child) => T) => Object.fromEntries(children.map((c) => [c.name, pick(c)])) as Record<ComponentName, T>;
  const apiserverChild = (): Child => {
    const child = children[APISERVER];
    if (!child) throw new Error('unreachable: a control plane without its API server');
    return child;
  };
  const kill = async (component: RestartableComponent): Promise<void> => {
    const child = apiserverChild();
    await child.kill();
    log(`killed ${component} (pid ${child.pid})`);
  };
  let stopping: Promise<void> | undefined;
  return {
    ...plane,
    pids: () => byName((c) => c.pid),
    logFiles: () => byName((c) => c.logFile),
    kill,
    restart: async (component) => {
      if (stopping) throw new Error(`the control plane in ${plane.dir} is stopping: ${component} is not started again`);
      if (apiserverChild().exit() === undefined) await kill(component);
      const api = await startApiserver(layout, children, plane.server);
      try {
        // The controller manager and the scheduler hold leader leases they renew through it; one
        // that could not renew in time has exited, and the control plane is no longer whole.
        const [etcd, server, manager, ...others] = children;
        if (!etcd || !server || !manager) throw new Error('unreachable: a control plane without etcd, its API server or its controller manager');
        for (const client of [manager, ...others]) {
          const exit = client.exit();
          if (exit !== undefined) throw new ChildStartError(client.name, `exited (${exit}) while ${component} was down`, client.logFile);
        }
        log(`restarted ${component} (pid ${server.pid}); waiting for the controllers to catch up`);
        await controllersCaughtUp(api, manager, [etcd, server, ...others]);
        log(`the controllers act on ${component} again`);
      } finally {
        api.close();
      }
    },
    stop: () =>
      (stopping ??= (async () => {
        await stopAll(children);
        rmSync(plane.dir, { recursive: true, force: true });
        log(`control plane in ${plane.dir} stopped`);
      })()),
  };
}

/** kwok, the scheduler and the controller manager together, then the API server, then etcd. */
async function stopAll(children: Child[]): Promise<void> {
  const [etcd, server, ...clients] = children;
  await Promise.all(clients.map((c) => c.stop()));
  if (server) await server.stop();
  if (etcd) await etcd.stop();
}

function start(line: CommandLine, dir: string): Promise<Child> {
  return startChild({ ...line, logFile: join(dir, `${line.name}.log`) });
}

async function leaseHeld(api: KubernetesApi, name: string): Promise<boolean> {
  const lease = await api.get<{ spec?: { holderIdentity?: string } }>(paths.lease('kube-system', name));
  return Boolean(lease.spec?.holderIdentity);
}

async function exists(api: KubernetesApi, path: string): Promise<boolean> {
  await api.get(path);
  return true;
}

function portTaken(logFile: string): boolean {
  try {
    return readFileSync(logFile, 'utf8').includes('address already in use');
  } catch {
    return false;
  }
}

function isReady(node: Node): boolean {
  return (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Three different free loopback ports (each asked of the kernel, so no other listener has them now). */
async function freePorts(): Promise<{ etcdClient: number; etcdPeer: number; apiserverPort: number }> {
  const taken = new Set<number>();
  const next = async (): Promise<number> => {
    for (;;) {
      const port = await freePort();
      if (taken.has(port)) continue;
      taken.add(port);
      return port;
    }
  };
  return { etcdClient: await next(), etcdPeer: await next(), apiserverPort: await next() };
}

/** Folders of control planes whose process is gone (SIGKILLed, say; their children went with it). */
function removeAbandoned(log: Log): void {
  for (const name of readdirSync(scratchParent)) {
    const owner = /^cp-(\d+)-/.exec(name)?.[1];
    if (owner === undefined || alive(Number(owner))) continue;
    rmSync(join(scratchParent, name), { recursive: true, force: true });
    log(`removed ${join(scratchParent, name)}, left by pid ${owner}`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
