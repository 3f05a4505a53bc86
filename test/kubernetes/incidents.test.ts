// The incidents domain's Kubernetes implementation (domains/incidents/kubernetes.ts) through the
// engine's real workflows, unchanged: the rules model restarts a service whose pods exhausted
// their memory and reverts a bad deploy, and each run is resolved by the probe only once the
// rollout it made has completed. What is asserted is what the API server holds: exactly one new
// revision per effect, whose template carries the effect's idempotency key. Then the readback's
// answers (applied, not applied, fenced) and the dedupe of a key, against the API directly.
import { describe, expect, inject, it } from 'vitest';
import { KubernetesApi } from '../../kubernetes/api.js';
import { kubernetesIncidentsImplementation as k8s } from '../../domains/incidents/kubernetes.js';
import { effectKey } from '../../workflows/public.js';
import { allRevisions, BAD_VERSION, namespaceOf, rolledOut, STABLE_VERSION } from './incidents-cluster.js';
import { factValues, runIncident, TOOL_TIMEOUT_MS, useIncidentCases } from './incidents-worker.js';

const cluster = inject('kubernetes');
const api = new KubernetesApi(cluster);
const { incident, worker: onWorker } = useIncidentCases(api);

describe('the incidents domain on Kubernetes, through real workflows', () => {
  it('restarts the service whose pods exhausted their memory: one new revision, stamped with the key; the probe confirms', async () => {
    const { caseId, namespace } = await incident({ faulty: { service: 'cache', fault: 'memory' } });
    const { result, view } = await runIncident(onWorker(), caseId);

    expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    const key = effectKey('incidents', 'restart_service', `restart:${caseId}:cache`);
    expect(result.effects).toEqual([expect.objectContaining({ tool: 'restart_service', status: 'applied', settledBy: 'response', key })]);
    const revisions = await allRevisions(api, namespace);
    expect(revisions.cache.map((r) => [r.revision, r.replicas, r.ready])).toEqual([
      [1, 0, 0],
      [2, 1, 1],
    ]);
    expect(revisions.cache[1]?.effect).toMatchObject({ kind: 'restart', idempotencyKey: key });
    expect(factValues(view, 'cache.restartedAt')).toEqual([revisions.cache[1]?.effect?.appliedAt]);
    // The other services were read, never touched.
    expect(revisions.api.map((r) => r.revision)).toEqual([1]);
    expect(revisions.db.map((r) => r.revision)).toEqual([1]);
    // The metrics read after the restart saw the restart as the service's last effect.
    expect(factValues(view, 'cache.lastEffectKey').at(-1)).toBe(key);
  });

  it("reverts a bad deploy to the previous version's tag: one new revision of v1.4.2, stamped; the probe confirms", async () => {
    const { caseId, namespace } = await incident({ faulty: { service: 'api', fault: 'bad_deploy' } });
    const { result, view } = await runIncident(onWorker(), caseId);

    expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    const key = effectKey('incidents', 'revert_deploy', `revert:${caseId}:api:${STABLE_VERSION}`);
    expect(result.effects).toEqual([expect.objectContaining({ tool: 'revert_deploy', status: 'applied', key })]);
    expect(factValues(view, 'api.previousVersion')).toEqual([STABLE_VERSION]);
    const { api: revisions } = await allRevisions(api, namespace);
    expect(revisions.map((r) => [r.revision, r.version, r.replicas, r.ready])).toEqual([
      [1, STABLE_VERSION, 0, 0],
      [2, BAD_VERSION, 0, 0],
      [3, STABLE_VERSION, 1, 1],
    ]);
    expect(revisions[2]?.effect).toMatchObject({ kind: 'revert', idempotencyKey: key });
  });
});

describe('the readback and the key, against the API server', () => {
  const ctx = (caseId: string, extra: { idempotencyKey?: string; sentAt?: number; fenceBefore?: number } = {}) => ({
    caseId,
    deps: { kubernetes: api, namespaceOf },
    timeoutMs: TOOL_TIMEOUT_MS,
    ...extra,
  });

  it('answers a repeated key with the stored effect and rolls nothing out again', async () => {
    const { caseId, namespace } = await incident({ faulty: { service: 'db', fault: 'memory' } });
    const key = effectKey('incidents', 'restart_service', `restart:${caseId}:db`);
    const first = await k8s.tools.restart_service({ service: 'db' }, ctx(caseId, { idempotencyKey: key }));
    const again = await k8s.tools.restart_service({ service: 'db' }, ctx(caseId, { idempotencyKey: key }));
    expect(again).toEqual(first);
    await rolledOut(api, namespace, 'db');
    expect((await allRevisions(api, namespace)).db.map((r) => r.revision)).toEqual([1, 2]);
    expect(await k8s.readbacks.read_incident_effect(key, ctx(caseId))).toEqual({ applied: true, output: first });
    // Another kind of effect under the same key is refused, not applied.
    const revert = await k8s.tools.revert_deploy({ service: 'db', toVersion: 'v1.4.1' }, ctx(caseId, { idempotencyKey: key })).catch((e: unknown) => e);
    expect(revert).toMatchObject({ code: 'idempotency_key_conflict' });
  });

  it('fences a key it does not find: a request sent before the fence is refused, one sent after it applies once', async () => {
    const { caseId, namespace } = await incident({ faulty: { service: 'api', fault: 'memory' } });
    const key = effectKey('incidents', 'restart_service', `restart:${caseId}:api`);
    expect(await k8s.readbacks.read_incident_effect(key, ctx(caseId))).toEqual({ applied: false });
    const fenceBefore = Date.now();
    expect(await k8s.readbacks.read_incident_effect(key, ctx(caseId, { fenceBefore }))).toEqual({ applied: false, fenced: true });

    const late = await k8s.tools.restart_service({ service: 'api' }, ctx(caseId, { idempotencyKey: key, sentAt: fenceBefore - 1 })).catch((e: unknown) => e);
    expect(late).toMatchObject({ code: 'idempotency_key_fenced' });
    expect((await allRevisions(api, namespace)).api.map((r) => r.revision)).toEqual([1]);

    const retried = await k8s.tools.restart_service({ service: 'api' }, ctx(caseId, { idempotencyKey: key, sentAt: fenceBefore + 1 }));
    await rolledOut(api, namespace, 'api');
    expect((await allRevisions(api, namespace)).api.map((r) => [r.revision, r.effect?.effectId])).toEqual([
      [1, undefined],
      [2, retried.effectId],
    ]);
    expect(await k8s.readbacks.read_incident_effect(key, ctx(caseId, { fenceBefore: Date.now() }))).toEqual({ applied: true, output: retried });
  });
});
