// Typed HTTP client for the world. Temporal activities call it, so every call
// is bounded by a timeout and every failure is a named error class that
// retry policies can tell apart: the world said no (WorldHttpError), the world
// did not answer in time (WorldTimeoutError), or the connection broke
// (WorldConnectionError) — the last two leave it unknown whether an effect happened.
import type {
  CallRecord,
  DeploysView,
  EffectRecord,
  FaultSpec,
  HoldSpec,
  HoldState,
  IncidentEffectReadback,
  IncidentEffectResult,
  IncidentSeed,
  LedgerView,
  LogsView,
  MetricsView,
  Op,
  PaymentSeed,
  ProcessorView,
  ReissueReadback,
  ReissueRequest,
  FenceRequest,
  IncidentFenceRequest,
  Relapse,
  ReissueResult,
  ReplicaView,
  RestartRequest,
  RevertRequest,
  VerifyView,
} from './contract.js';

export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

export class WorldHttpError extends Error {
  override name = 'WorldHttpError';
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`world ${method} ${path} -> ${status} ${JSON.stringify(body)?.slice(0, 300) ?? ''}`);
  }
}

export class WorldTimeoutError extends Error {
  override name = 'WorldTimeoutError';
  constructor(
    readonly method: string,
    readonly path: string,
    readonly reason: 'timeout' | 'aborted',
    readonly timeoutMs: number,
    cause?: unknown,
  ) {
    super(reason === 'timeout' ? `world ${method} ${path} timed out after ${timeoutMs}ms` : `world ${method} ${path} aborted by caller`, { cause });
  }
}

export class WorldConnectionError extends Error {
  override name = 'WorldConnectionError';
  constructor(
    readonly method: string,
    readonly path: string,
    readonly code: string | undefined,
    cause?: unknown,
  ) {
    super(`world ${method} ${path} connection failed${code ? ` (${code})` : ''}`, { cause });
  }
}

const enc = encodeURIComponent;

export class WorldClient {
  private readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly defaultTimeoutMs = 10_000,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  // --- payments ---------------------------------------------------------------
  getReplica(transferId: string, o?: CallOptions) {
    return this.request<ReplicaView>('GET', `/payments/replica/${enc(transferId)}`, undefined, o);
  }
  getLedger(transferId: string, o?: CallOptions) {
    return this.request<LedgerView>('GET', `/payments/ledger/${enc(transferId)}`, undefined, o);
  }
  getProcessorAck(transferId: string, o?: CallOptions) {
    return this.request<ProcessorView>('GET', `/payments/processor/${enc(transferId)}`, undefined, o);
  }
  reissue(req: ReissueRequest, o?: CallOptions) {
    return this.request<ReissueResult>('POST', '/payments/reissue', req, o);
  }
  getReissueByKey(idempotencyKey: string, o?: CallOptions) {
    return this.request<ReissueReadback>('GET', `/payments/reissues/by-key/${enc(idempotencyKey)}`, undefined, o);
  }
  /** The readback that fences: afterwards no request under the key sent before `fence.before` commits. */
  fenceReissueKey(idempotencyKey: string, fence: FenceRequest, o?: CallOptions) {
    return this.request<ReissueReadback>('POST', `/payments/reissues/by-key/${enc(idempotencyKey)}/fence`, fence, o);
  }

  // --- incidents --------------------------------------------------------------
  getMetrics(caseId: string, service: string, o?: CallOptions) {
    return this.request<MetricsView>('GET', `/incidents/${enc(caseId)}/metrics/${enc(service)}`, undefined, o);
  }
  getLogs(caseId: string, service: string, o?: CallOptions & { limit?: number }) {
    const query = o?.limit === undefined ? '' : `?limit=${o.limit}`;
    return this.request<LogsView>('GET', `/incidents/${enc(caseId)}/logs/${enc(service)}${query}`, undefined, o);
  }
  getDeploys(caseId: string, service: string, o?: CallOptions) {
    return this.request<DeploysView>('GET', `/incidents/${enc(caseId)}/deploys/${enc(service)}`, undefined, o);
  }
  restart(caseId: string, req: RestartRequest, o?: CallOptions) {
    return this.request<IncidentEffectResult>('POST', `/incidents/${enc(caseId)}/restart`, req, o);
  }
  revert(caseId: string, req: RevertRequest, o?: CallOptions) {
    return this.request<IncidentEffectResult>('POST', `/incidents/${enc(caseId)}/revert`, req, o);
  }
  getIncidentEffectByKey(idempotencyKey: string, o?: CallOptions) {
    return this.request<IncidentEffectReadback>('GET', `/incidents/effects/by-key/${enc(idempotencyKey)}`, undefined, o);
  }
  /** The readback that fences: afterwards no request under the key sent before `fence.before` acts. */
  fenceIncidentEffectKey(idempotencyKey: string, fence: IncidentFenceRequest, o?: CallOptions) {
    return this.request<IncidentEffectReadback>('POST', `/incidents/effects/by-key/${enc(idempotencyKey)}/fence`, fence, o);
  }
  verify(caseId: string, o?: CallOptions) {
    return this.request<VerifyView>('GET', `/incidents/${enc(caseId)}/verify`, undefined, o);
  }

  // --- control ----------------------------------------------------------------
  health(o?: CallOptions) {
    return this.request<{ ok: true }>('GET', '/control/health', undefined, o);
  }
  seedPayment(seed: PaymentSeed, o?: CallOptions) {
    return this.request<{ ok: true; transferId: string }>('POST', '/control/seed/payments', seed, o);
  }
  seedIncident(seed: IncidentSeed, o?: CallOptions) {
    return this.request<{ ok: true; caseId: string }>('POST', '/control/seed/incidents', seed, o);
  }
  /** The service's fault comes back (after a remediation); its effects stay on record. */
  relapse(caseId: string, spec: Relapse, o?: CallOptions) {
    return this.request<{ ok: true }>('POST', `/control/incidents/${enc(caseId)}/relapse`, spec, o);
  }
  injectFault(spec: FaultSpec, o?: CallOptions) {
    return this.request<{ faultId: number }>('POST', '/control/faults', spec, o);
  }
  clearFaults(o?: CallOptions) {
    return this.request<{ ok: true }>('DELETE', '/control/faults', undefined, o);
  }
  createHold(spec: HoldSpec, o?: CallOptions) {
    return this.request<{ holdId: string }>('POST', '/control/holds', spec, o);
  }
  getHold(holdId: string, o?: CallOptions) {
    return this.request<HoldState>('GET', `/control/holds/${enc(holdId)}`, undefined, o);
  }
  releaseHold(holdId: string, o?: CallOptions) {
    return this.request<HoldState>('POST', `/control/holds/${enc(holdId)}/release`, undefined, o);
  }
  dropHold(holdId: string, o?: CallOptions) {
    return this.request<HoldState>('POST', `/control/holds/${enc(holdId)}/drop`, undefined, o);
  }
  releaseAllHolds(o?: CallOptions) {
    return this.request<{ ok: true }>('DELETE', '/control/holds', undefined, o);
  }

  async calls(filter: { key?: string; op?: Op } = {}, o?: CallOptions): Promise<CallRecord[]> {
    return (await this.request<{ calls: CallRecord[] }>('GET', `/control/calls${toQuery(filter)}`, undefined, o)).calls;
  }

  async effects(filter: { key?: string } = {}, o?: CallOptions): Promise<EffectRecord[]> {
    return (await this.request<{ effects: EffectRecord[] }>('GET', `/control/effects${toQuery(filter)}`, undefined, o)).effects;
  }

  // Polls until a request is parked at the hold, so a test can act (crash a
  // worker, say) knowing exactly where that request is.
  async waitForHold(holdId: string, o: { timeoutMs?: number; pollMs?: number } = {}): Promise<HoldState> {
    const deadline = Date.now() + (o.timeoutMs ?? this.defaultTimeoutMs);
    for (;;) {
      const state = await this.getHold(holdId);
      if (state.reached) return state;
      if (Date.now() > deadline) throw new WorldTimeoutError('GET', `/control/holds/${holdId}`, 'timeout', o.timeoutMs ?? this.defaultTimeoutMs);
      await new Promise((resolve) => setTimeout(resolve, o.pollMs ?? 20));
    }
  }

  private async request<T>(method: string, path: string, body: unknown, o: CallOptions = {}): Promise<T> {
    const timeoutMs = o.timeoutMs ?? this.defaultTimeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
    try {
      const res = await fetch(this.baseUrl + path, {
        method,
        signal,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      const text = await res.text();
      const parsed = parseJson(text);
      if (!res.ok) throw new WorldHttpError(method, path, res.status, parsed);
      return parsed as T;
    } catch (err) {
      if (err instanceof WorldHttpError) throw err;
      if (signal.aborted) throw new WorldTimeoutError(method, path, timeout.aborted ? 'timeout' : 'aborted', timeoutMs, err);
      throw new WorldConnectionError(method, path, errorCode(err), err);
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? null : (JSON.parse(text) as unknown);
  } catch {
    return text;
  }
}

function toQuery(filter: Record<string, string | undefined>): string {
  const entries = Object.entries(filter).filter((e): e is [string, string] => e[1] !== undefined);
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries).toString()}`;
}

// fetch wraps socket failures as TypeError('fetch failed') with the real error as cause.
function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
