// A real worker (in the test process, on the suite's dev server and examples' bundle) whose
// incidents domain is the Kubernetes implementation, and the test's hand in the API calls that
// implementation makes: an interposer per namespace (so per case) sees each GET and PATCH before
// it goes out and decides what happens (send it, send it and then lose the reply, crash the API
// server, let another writer in first). Everything else is the engine's, unchanged.
import type { WorkflowHandle } from '@temporalio/client';
import { KubernetesApi, type PatchKind } from '../../kubernetes/api.js';
import { kubernetesIncidentsImplementation } from '../../domains/incidents/kubernetes.js';
import { pollersOf } from '../../client/server-facts.js';
import { agentWorkflow } from '../../domains/workflows.js';
import { stateQuery, type RunResult, type RunView } from '../../workflows/messages.js';
import type { RunInput } from '../../workflows/run-input.js';
import { startRun } from '../support/agent.js';
import { startWorkerWith, uniqueTaskQueue, type StartedWorker } from '../support/temporal.js';
import { waitUntil } from '../support/wait.js';
import { afterAll, beforeAll } from 'vitest';
import { paths } from '../../kubernetes/resources.js';
import { uniqueCase } from '../support/agent.js';
import { namespaceOf, seedIncident, type IncidentSeed } from './incidents-cluster.js';

/**
 * What one call to the system of record may take (ToolContext.timeoutMs), as DEVELOPERS.md asks
 * of a success path. Half of it is how long a read waits for a rollout to settle, and it is what
 * a readback rides out of an absent API server, each of the engine's readback attempts.
 */
export const TOOL_TIMEOUT_MS = 20_000;

export interface ApiRequest {
  method: 'GET' | 'PATCH';
  path: string;
  namespace: string;
  body?: unknown;
  kind?: PatchKind;
}

/** Decides what becomes of one request: `send` sends it as it is. */
export type Interposer = (request: ApiRequest, send: () => Promise<unknown>) => Promise<unknown>;

/** A KubernetesApi whose GETs and PATCHes in a namespace pass through that namespace's interposer, if it has one. */
export class InterposedApi extends KubernetesApi {
  private readonly interposers = new Map<string, Interposer>();

  interpose(namespace: string, interposer: Interposer): void {
    this.interposers.set(namespace, interposer);
  }

  override get<T>(path: string): Promise<T> {
    return this.through<T>({ method: 'GET', path }, () => super.get<T>(path));
  }

  override patch<T>(path: string, body: unknown, kind: PatchKind = 'strategic'): Promise<T> {
    return this.through<T>({ method: 'PATCH', path, body, kind }, () => super.patch<T>(path, body, kind));
  }

  private through<T>(request: Omit<ApiRequest, 'namespace'>, send: () => Promise<T>): Promise<T> {
    const namespace = /\/namespaces\/([^/]+)\//.exec(request.path)?.[1];
    const interposer = namespace === undefined ? undefined : this.interposers.get(namespace);
    return interposer ? (interposer({ ...request, namespace: namespace as string }, send) as Promise<T>) : send();
  }
}

/** A PATCH of a Deployment that changes its pod template: a restart or a revert going out. */
export function isTemplateWrite(request: ApiRequest): boolean {
  if (request.method !== 'PATCH' || !/\/deployments\/[^/]+$/.test(request.path)) return false;
  if (Array.isArray(request.body)) return request.body.some((op: { path?: string }) => op.path === '/spec/template');
  return (request.body as { spec?: { template?: unknown } } | undefined)?.spec?.template !== undefined;
}

/** A worker serving the incidents domain through `api`, polling its own task queue before it is handed out. */
export async function startKubernetesWorker(api: KubernetesApi): Promise<StartedWorker> {
  const started = await startWorkerWith({
    taskQueue: uniqueTaskQueue('k8s-incidents'),
    activities: {
      implementations: [kubernetesIncidentsImplementation],
      deps: { kubernetes: api, namespaceOf },
      toolTimeoutMs: TOOL_TIMEOUT_MS,
    },
  });
  await waitUntil(async () => (await pollersOf(started.client, started.taskQueue)).recent > 0, `the worker polling ${started.taskQueue}`);
  return started;
}

export interface FinishedRun {
  result: RunResult;
  view: RunView;
  handle: WorkflowHandle<typeof agentWorkflow>;
}

/** An incidents run of the case on the worker's queue, to its end. */
export async function runIncident(worker: StartedWorker, caseId: string, run: Partial<RunInput> = {}): Promise<FinishedRun> {
  const handle = await startRun(worker, { domain: 'incidents', caseId, model: { adapter: 'rules' }, ...run } as RunInput);
  const result = await handle.result();
  return { result, view: await handle.query(stateQuery), handle };
}

/** The facts the run's evidence holds under `key`, in the order it learnt them. */
export function factValues(view: RunView, key: string): unknown[] {
  return view.state.evidence.flatMap((e) => (key in e.facts ? [e.facts[key]] : []));
}

/**
 * A test file's cases: one worker on `api` for the file, a namespace per case (`incident`),
 * seeded and cleaned up through `direct` (the same client, unless the file interposes on the
 * worker's), and every namespace deleted and the worker stopped when the file is done.
 */
export function useIncidentCases(api: KubernetesApi, direct: KubernetesApi = api) {
  let worker: StartedWorker | undefined;
  const namespaces: string[] = [];
  beforeAll(async () => {
    worker = await startKubernetesWorker(api);
  });
  afterAll(async () => {
    await worker?.close();
    await Promise.all(namespaces.map((ns) => direct.delete(paths.namespace(ns)).catch(() => undefined)));
    api.close();
    if (direct !== api) direct.close();
  });
  return {
    /** A case seeded as `seed`, under `caseId` when the test needs a particular one. */
    async incident(seed: IncidentSeed, caseId = uniqueCase('INC')): Promise<{ caseId: string; namespace: string }> {
      namespaces.push(namespaceOf(caseId));
      return { caseId, namespace: await seedIncident(direct, caseId, seed) };
    },
    worker(): StartedWorker {
      if (!worker) throw new Error('the worker is started before the tests');
      return worker;
    },
  };
}
