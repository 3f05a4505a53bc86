// Faults a real Kubernetes API brings to an effect, each through the engine's real workflows and
// asserted on the API server's objects: a write refused 409 Conflict because the Deployment
// changed since it was read (planned again on a fresh read, and a key that landed meanwhile is
// answered, not applied again); a write that landed but whose reply was lost (read back by its
// key and found, never sent again); and a rollout that never completes (the service is judged by
// the pods that still serve, the run does not resolve, nothing is restarted again). The API
// server restarting mid-effect is apiserver-restart.test.ts, on a control plane of its own.
import { describe, expect, inject, it } from 'vitest';
import { KubernetesApi, KubernetesApiError, KubernetesUnreachableError } from '../../kubernetes/api.js';
import { paths, type Deployment } from '../../kubernetes/resources.js';
import { getDeployment } from '../../kubernetes/rollout.js';
import { kubernetesIncidentsImplementation as k8s } from '../../domains/incidents/kubernetes.js';
import { EFFECT_KEY_ANNOTATION } from '../../domains/incidents/kubernetes-record.js';
import { WRITE_ATTEMPTS } from '../../domains/incidents/kubernetes-effects.js';
import { effectKey } from '../../workflows/public.js';
import { waitUntil } from '../support/wait.js';
import { allRevisions, namespaceOf } from './incidents-cluster.js';
import { factValues, InterposedApi, isTemplateWrite, runIncident, TOOL_TIMEOUT_MS, useIncidentCases, type ApiRequest } from './incidents-worker.js';

const cluster = inject('kubernetes');
/** The worker's client, which the tests interpose on; `direct` is everyone else (another writer, the test's reads). */
const api = new InterposedApi(cluster);
const direct = new KubernetesApi(cluster);
const { incident, worker: onWorker } = useIncidentCases(api, direct);

/** The idempotency key a template write carries (the restart's strategic merge patch). */
function keyIn(request: ApiRequest): string | undefined {
  return (request.body as { spec?: { template?: { metadata?: { annotations?: Record<string, string> } } } }).spec?.template?.metadata?.annotations?.[
    EFFECT_KEY_ANNOTATION
  ];
}

/** Counts the template writes the worker sends and how each was answered. */
function writeLog() {
  const answers: string[] = [];
  return {
    answers,
    /** Sends the write, noting `ok` or the API's status. */
    async send(send: () => Promise<unknown>): Promise<unknown> {
      try {
        const answer = await send();
        answers.push('ok');
        return answer;
      } catch (err) {
        answers.push(err instanceof KubernetesApiError ? String(err.status) : 'unreachable');
        throw err;
      }
    },
  };
}

describe('faults of a real API, read back and reconciled', () => {
  it('409 on a stale resourceVersion: the same key landed meanwhile, so the fresh read answers it and nothing rolls out twice', async () => {
    const { caseId, namespace } = await incident({ faulty: { service: 'cache', fault: 'memory' } });
    const writes = writeLog();
    let racer: { effectId: string; appliedAt: string } | undefined;
    api.interpose(namespace, async (request, send) => {
      if (!isTemplateWrite(request)) return send();
      if (!racer) {
        // Between the worker's read and its write, the same restart under the same key lands from
        // elsewhere (another attempt of it, on its way since before): the worker's write is now
        // planned on a resourceVersion that is no longer the Deployment's.
        const key = keyIn(request);
        if (!key) throw new Error('the restart carries no key');
        racer = await k8s.tools.restart_service(
          { service: 'cache' },
          { caseId, idempotencyKey: key, deps: { kubernetes: direct, namespaceOf }, timeoutMs: TOOL_TIMEOUT_MS },
        );
      }
      return writes.send(send);
    });
    const { result, view } = await runIncident(onWorker(), caseId);

    // The cluster holds exactly the one restart that landed first, and the run was answered with it.
    const { cache } = await allRevisions(direct, namespace);
    expect(cache.map((r) => [r.revision, r.effect?.effectId])).toEqual([
      [1, undefined],
      [2, racer?.effectId],
    ]);
    expect(writes.answers).toEqual(['409']);
    expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    const key = effectKey('incidents', 'restart_service', `restart:${caseId}:cache`);
    expect(result.effects).toEqual([expect.objectContaining({ tool: 'restart_service', status: 'applied', settledBy: 'response', key })]);
    expect(factValues(view, 'cache.restartedAt')).toEqual([racer?.appliedAt]);
  });

  it('409 on a stale resourceVersion: another writer changed the Deployment meanwhile, so the restart is planned again and applied once', async () => {
    const { caseId, namespace } = await incident({ faulty: { service: 'db', fault: 'memory' } });
    const writes = writeLog();
    api.interpose(namespace, async (request, send) => {
      if (!isTemplateWrite(request)) return send();
      if (writes.answers.length === 0) {
        // A person labels the Deployment between the worker's read and its write.
        await direct.patch(paths.deployment(namespace, 'db'), { metadata: { labels: { 'on-call': 'looking' } } }, 'merge');
      }
      return writes.send(send);
    });
    const { result } = await runIncident(onWorker(), caseId);

    expect(writes.answers).toEqual(['409', 'ok']);
    expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    expect(result.effects).toEqual([expect.objectContaining({ tool: 'restart_service', status: 'applied', settledBy: 'response' })]);
    const { db } = await allRevisions(direct, namespace);
    expect(db.map((r) => r.revision)).toEqual([1, 2]);
    expect(db[1]?.effect?.idempotencyKey).toBe(result.effects[0]?.key);
    // The other writer's change stands beside the restart.
    expect((await getDeployment(direct, namespace, 'db')).metadata.labels?.['on-call']).toBe('looking');
  });

  it('409 on every write: the restart is reported refused, nothing was applied, and the run does not resolve', async () => {
    const { caseId, namespace } = await incident({ faulty: { service: 'api', fault: 'memory' } });
    const writes = writeLog();
    let touched = 0;
    api.interpose(namespace, async (request, send) => {
      if (!isTemplateWrite(request)) return send();
      // Someone writes the Deployment between every read and write of the worker's.
      await direct.patch(paths.deployment(namespace, 'api'), { metadata: { labels: { touched: String(++touched) } } }, 'merge');
      return writes.send(send);
    });
    const { result } = await runIncident(onWorker(), caseId);

    const { api: revisions } = await allRevisions(direct, namespace);
    expect(revisions.map((r) => r.revision)).toEqual([1]);
    expect(writes.answers).toEqual(Array.from({ length: WRITE_ATTEMPTS }, () => '409'));
    // Refused, so not in doubt: nothing to read back, and the engine's effect guard stops a blind repeat.
    expect(result.effects).toEqual([expect.objectContaining({ tool: 'restart_service', status: 'failed', readbacks: 0 })]);
    expect(result.terminal).toMatchObject({ class: 'blocked', reason: 'effect_guard' });
  });

  it('a reply lost after the write: the change is in etcd, the engine reads it back by key and finds it; one restart in the history', async () => {
    const { caseId, namespace } = await incident({ faulty: { service: 'api', fault: 'memory' } });
    const writes = writeLog();
    api.interpose(namespace, async (request, send) => {
      if (!isTemplateWrite(request)) return send();
      await writes.send(send);
      // Written, and the connection drops before the answer reaches the worker.
      throw new KubernetesUnreachableError('PATCH', request.path, Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    });
    const { result, view } = await runIncident(onWorker(), caseId);

    const key = effectKey('incidents', 'restart_service', `restart:${caseId}:api`);
    const { api: revisions } = await allRevisions(direct, namespace);
    expect(revisions.map((r) => [r.revision, r.effect?.idempotencyKey])).toEqual([
      [1, undefined],
      [2, key],
    ]);
    expect(writes.answers).toEqual(['ok']);
    expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    expect(result.effects).toEqual([
      expect.objectContaining({ tool: 'restart_service', status: 'applied', settledBy: 'readback', attempts: 1, readbacks: 1, key }),
    ]);
    expect(view.state.executions.find((x) => x.kind === 'effect')).toMatchObject({ result: 'unknown', idempotencyKey: key });
    // What the run learnt of the restart is what the readback found in the cluster.
    expect(factValues(view, 'api.restartedAt')).toEqual([revisions[1]?.effect?.appliedAt]);
  });

  it('a rollout that never completes: the old pods still serve, so the run does not resolve, and nothing is restarted again', async () => {
    const { caseId, namespace } = await incident({ faulty: { service: 'api', fault: 'memory' }, progressDeadlineSeconds: 10 });
    // The namespace may run three pods, and runs them: the restart's new pod is refused, for ever.
    await direct.create(paths.resourceQuotas(namespace), { metadata: { name: 'pods' }, spec: { hard: { pods: '3' } } });
    await waitUntil(async () => {
      const quota = await direct.get<{ status?: { used?: { pods?: string } } }>(paths.resourceQuota(namespace, 'pods'));
      return quota.status?.used?.pods === '3';
    }, 'the quota controller counting the namespace pods');
    const writes = writeLog();
    api.interpose(namespace, (request, send) => (isTemplateWrite(request) ? writes.send(send) : send()));
    const { result, view } = await runIncident(onWorker(), caseId);

    expect(writes.answers).toEqual(['ok']);
    expect(result.terminal).toMatchObject({ class: 'escalated' });
    expect(result.terminal.detail).toContain('api is still unhealthy after remediation');
    expect(result.effects).toEqual([expect.objectContaining({ tool: 'restart_service', status: 'applied' })]);
    // Read after the restart: unhealthy, the old pods' memory still exhausted.
    expect(factValues(view, 'api.healthy')).toEqual([false, false]);
    expect(factValues(view, 'api.memoryPct')).toEqual([97, 97]);
    expect(view.state.evidence.filter((e) => e.tool === 'probe')).toEqual([]);

    const stalled = await waitUntil(async () => {
      const d: Deployment = await getDeployment(direct, namespace, 'api');
      const progressing = d.status?.conditions?.find((c) => c.type === 'Progressing');
      return progressing?.reason === 'ProgressDeadlineExceeded' ? d : undefined;
    }, 'the deployment controller giving up on the rollout');
    expect(stalled.status?.availableReplicas).toBe(1);
    const { api: revisions } = await allRevisions(direct, namespace);
    expect(revisions.map((r) => [r.revision, r.replicas, r.ready, r.effect?.idempotencyKey])).toEqual([
      [1, 1, 1, undefined],
      [2, 1, 0, result.effects[0]?.key],
    ]);
  });
});
