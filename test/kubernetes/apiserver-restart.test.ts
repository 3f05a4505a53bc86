// The API server crashes mid-effect and comes back. Either the restart's write reached etcd and
// the API server is SIGKILLed by its pid before it answers, or it is SIGKILLed just before the
// write reaches it; either way the worker does not know, and the engine's readback meets a server
// that refuses connections. The readback waits it out: the test starts the server again only once
// the readback has been refused more often than the engine's own readback attempts, as a real API
// server takes seconds to come back. The write that landed is found by its key; the one that did
// not is found missing and its key fenced, and the restart goes out again under that key. Either
// way one restart is in the history. On a control plane of this file's own: crashing the suite's
// API server would break the other files' tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubernetesApiError, KubernetesUnreachableError } from '../../kubernetes/api.js';
import { startControlPlane, type ControlPlane } from '../../kubernetes/control-plane.js';
import { effectKey } from '../../workflows/public.js';
import { DEFAULT_READBACK_ATTEMPTS } from '../../workflows/policy.js';
import { uniqueCase } from '../support/agent.js';
import type { StartedWorker } from '../support/temporal.js';
import { waitUntil } from '../support/wait.js';
import { allRevisions, seedIncident } from './incidents-cluster.js';
import { factValues, InterposedApi, isTemplateWrite, runIncident, startKubernetesWorker, type FinishedRun } from './incidents-worker.js';

let plane: ControlPlane | undefined;
let api: InterposedApi | undefined;
let worker: StartedWorker | undefined;

beforeAll(async () => {
  plane = await startControlPlane({ log: (line) => process.stderr.write(`[kubernetes restart test] ${line}\n`) });
  api = new InterposedApi(plane);
  worker = await startKubernetesWorker(api);
});

afterAll(async () => {
  await worker?.close();
  api?.close();
  await plane?.stop();
});

function started(): { plane: ControlPlane; api: InterposedApi; worker: StartedWorker } {
  if (!plane || !api || !worker) throw new Error('the control plane and the worker are started before the tests');
  return { plane, api, worker };
}

/**
 * The API server's outage as the worker's requests meet it: refused (and counted) while it is
 * down; held while it comes back, until the control plane acts on it again (ControlPlane.restart
 * waits for that), since the controllers' watches lag a restart; then sent as usual.
 */
class Outage {
  refused = 0;
  private phase: 'up' | 'down' | 'returning' = 'up';
  private back: Promise<void> = Promise.resolve();

  constructor(private readonly plane: ControlPlane) {}

  async crash(): Promise<void> {
    await this.plane.kill('kube-apiserver');
    this.phase = 'down';
  }

  async send<T>(send: () => Promise<T>): Promise<T> {
    if (this.phase === 'returning') await this.back;
    try {
      return await send();
    } catch (err) {
      if (this.phase === 'down' && !(err instanceof KubernetesApiError)) this.refused++;
      throw err;
    }
  }

  /**
   * The run, with the server started again once the readback has been refused more often than
   * the engine itself asks (DEFAULT_READBACK_ATTEMPTS): a readback that gave up sooner would end
   * the run in doubt. A run that ends first has the server started again too, and then fails the
   * test on its outcome.
   */
  async ride(run: Promise<FinishedRun>): Promise<FinishedRun> {
    let ended = false;
    const watched = run.finally(() => (ended = true));
    await waitUntil(() => this.refused > DEFAULT_READBACK_ATTEMPTS || ended, 'the readback refused by the crashed API server, again and again');
    this.phase = 'returning';
    this.back = this.plane.restart('kube-apiserver');
    await this.back;
    this.phase = 'up';
    return watched;
  }
}

describe('the API server restarted mid-effect', () => {
  it('the write landed and the server died before answering: the readback waits for it, finds the key, and the run resolves with one restart', async () => {
    const { plane, api, worker } = started();
    const caseId = uniqueCase('INC');
    const namespace = await seedIncident(api, caseId, { faulty: { service: 'db', fault: 'memory' } });
    const before = plane.pids()['kube-apiserver'];
    const outage = new Outage(plane);
    let templateWrites = 0;
    api.interpose(namespace, async (request, send) => {
      if (!isTemplateWrite(request)) return outage.send(send);
      templateWrites++;
      await send();
      await outage.crash();
      throw new KubernetesUnreachableError('PATCH', request.path, Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    });
    const { result, view } = await outage.ride(runIncident(worker, caseId));

    expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    expect(plane.pids()['kube-apiserver']).not.toBe(before);
    expect(templateWrites).toBe(1);
    const key = effectKey('incidents', 'restart_service', `restart:${caseId}:db`);
    expect(result.effects).toEqual([expect.objectContaining({ tool: 'restart_service', status: 'applied', settledBy: 'readback', attempts: 1, key })]);
    const { db, api: apiRevisions, cache } = await allRevisions(api, namespace);
    expect(db.map((r) => [r.revision, r.replicas, r.ready, r.effect?.idempotencyKey])).toEqual([
      [1, 0, 0, undefined],
      [2, 1, 1, key],
    ]);
    expect(factValues(view, 'db.restartedAt')).toEqual([db[1]?.effect?.appliedAt]);
    expect([apiRevisions.length, cache.length]).toEqual([1, 1]);
  });

  it('the server died before the write reached it: the readback, once it answers, fences the key; the restart goes out again under it and lands once', async () => {
    const { plane, api, worker } = started();
    const caseId = uniqueCase('INC');
    const namespace = await seedIncident(api, caseId, { faulty: { service: 'cache', fault: 'memory' } });
    const outage = new Outage(plane);
    const writes: string[] = [];
    api.interpose(namespace, async (request, send) => {
      if (!isTemplateWrite(request)) return outage.send(send);
      if (writes.length === 0) await outage.crash();
      try {
        const answer = await send();
        writes.push('ok');
        return answer;
      } catch (err) {
        writes.push(err instanceof KubernetesApiError ? String(err.status) : 'refused');
        throw err;
      }
    });
    const { result } = await outage.ride(runIncident(worker, caseId));

    expect(result.terminal).toMatchObject({ class: 'resolved', reason: 'probe_confirmed' });
    expect(writes).toEqual(['refused', 'ok']);
    const key = effectKey('incidents', 'restart_service', `restart:${caseId}:cache`);
    // The first was found not applied, with the key fenced; the second went out under the same key.
    expect(result.effects).toEqual([
      expect.objectContaining({ tool: 'restart_service', status: 'not_applied', settledBy: 'readback', key }),
      expect.objectContaining({ tool: 'restart_service', status: 'applied', settledBy: 'response', key }),
    ]);
    const { cache } = await allRevisions(api, namespace);
    expect(cache.map((r) => [r.revision, r.effect?.idempotencyKey])).toEqual([
      [1, undefined],
      [2, key],
    ]);
  });
});
