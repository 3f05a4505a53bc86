// Control routes: how tests, the demo and the crash harness set the world up
// and read back the ground truth. They are never logged, faulted or held.
import { FaultSpec, HoldSpec, IncidentSeed, PaymentSeed, Relapse } from './contract.js';
import type { HoldRegistry } from './faults.js';
import { HttpError, ok, param, parseBody, type Reply, type Route, type RouteInput } from './http.js';
import { seedIncident } from './incidents.js';
import { seedPayment } from './payments.js';
import type { WorldStore } from './store.js';

export function controlRoutes(store: WorldStore, holds: HoldRegistry): Route[] {
  const holdReply = (input: RouteInput, found: ReturnType<HoldRegistry['state']>): Reply => {
    if (!found) throw new HttpError(404, { error: 'hold_not_found', holdId: input.params.holdId });
    return ok(found);
  };
  const filter = (input: RouteInput, name: string) => {
    const value = input.params[name];
    return value === undefined || value === '' ? {} : { [name]: value };
  };

  return [
    { method: 'GET', path: '/control/health', handle: () => ok({ ok: true }) },
    {
      method: 'POST',
      path: '/control/seed/payments',
      handle(input) {
        const seed = parseBody(PaymentSeed, input.body);
        seedPayment(store, seed);
        return ok({ ok: true, transferId: seed.transferId });
      },
    },
    {
      method: 'POST',
      path: '/control/seed/incidents',
      handle(input) {
        const seed = parseBody(IncidentSeed, input.body);
        seedIncident(store, seed);
        return ok({ ok: true, caseId: seed.caseId });
      },
    },
    {
      // The fault comes back after a remediation (a leak that returns): the service's state only,
      // the effects it received stay on record.
      method: 'POST',
      path: '/control/incidents/:caseId/relapse',
      handle(input) {
        const { service, fault } = parseBody(Relapse, input.body);
        const row = store.getService(param(input, 'caseId'), service);
        if (!row) throw new HttpError(404, { error: 'service_not_found', service });
        store.updateService({ ...row, fault });
        return ok({ ok: true });
      },
    },
    {
      method: 'POST',
      path: '/control/faults',
      handle(input) {
        const f = parseBody(FaultSpec, input.body);
        return ok({ faultId: store.addFault({ op: f.op, key: f.key ?? null, mode: f.mode, remaining: f.times, delayMs: f.delayMs }) });
      },
    },
    {
      method: 'DELETE',
      path: '/control/faults',
      handle: () => {
        store.clearFaults();
        return ok({ ok: true });
      },
    },
    { method: 'POST', path: '/control/holds', handle: (input) => ok({ holdId: holds.create(parseBody(HoldSpec, input.body)) }) },
    {
      method: 'DELETE',
      path: '/control/holds',
      handle: () => {
        holds.releaseAll();
        return ok({ ok: true });
      },
    },
    { method: 'GET', path: '/control/holds/:holdId', handle: (input) => holdReply(input, holds.state(param(input, 'holdId'))) },
    { method: 'POST', path: '/control/holds/:holdId/release', handle: (input) => holdReply(input, holds.release(param(input, 'holdId'))) },
    { method: 'POST', path: '/control/holds/:holdId/drop', handle: (input) => holdReply(input, holds.drop(param(input, 'holdId'))) },
    { method: 'GET', path: '/control/calls', handle: (input) => ok({ calls: store.listCalls({ ...filter(input, 'key'), ...filter(input, 'op') }) }) },
    { method: 'GET', path: '/control/effects', handle: (input) => ok({ effects: store.listEffects(filter(input, 'key')) }) },
  ];
}
