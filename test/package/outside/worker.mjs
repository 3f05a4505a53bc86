// The team's worker: its domain's implementation against its own service, with its own
// dependencies and approver directory. Everything else comes from the environment.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createAgentWorker, implement, ToolRefused, ToolUnavailable } from 'bounded-react-temporal/worker';
import { refunds } from './refunds.mjs';

class ServiceError extends Error {
  constructor(status, body) {
    super(`refunds service said ${status}`);
    this.status = status;
    this.body = body;
  }
}

/** The team's own client of its own service. */
function refundsClient(baseUrl) {
  const call = async (method, path, body, timeoutMs) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const value = await res.json();
    if (!res.ok) throw new ServiceError(res.status, value);
    return value;
  };
  return {
    get: (id, t) => call('GET', `/refunds/${encodeURIComponent(id)}`, undefined, t),
    pay: (id, key, t) => call('POST', `/refunds/${encodeURIComponent(id)}/pay`, { key }, t),
    payoutByKey: (key, t) => call('GET', `/payouts/${encodeURIComponent(key)}`, undefined, t),
  };
}

const pay = (args, ctx) => ctx.deps.refunds.pay(args.refundId, ctx.idempotencyKey, ctx.timeoutMs);

const implementation = implement(refunds).with({
  tools: {
    read_refund: (args, ctx) => ctx.deps.refunds.get(args.refundId, ctx.timeoutMs),
    pay_refund: pay,
    pay_large_refund: pay,
  },
  readbacks: {
    payout_by_key: async (key, ctx) => {
      try {
        return { applied: true, output: await ctx.deps.refunds.payoutByKey(key, ctx.timeoutMs) };
      } catch (err) {
        if (err instanceof ServiceError && err.status === 404) return { applied: false };
        throw err;
      }
    },
  },
  async probe(_claim, ctx) {
    const refund = await ctx.deps.refunds.get(ctx.caseId, ctx.timeoutMs);
    return { holds: refund.status === 'PAID', conflict: false, decided: true, detail: `refund is ${refund.status}`, facts: { 'refund.status': refund.status } };
  },
  // A fixed policy standing in for a model: read, pay in the right size class, finish.
  policy(context) {
    const refundId = context.caseId;
    const evidence = (tool) => context.evidence.filter((e) => e.tool === tool && e.status === 'ok').at(-1);
    const payout = context.evidence.find((e) => e.status === 'ok' && e.facts['payout.id']);
    if (payout) return { type: 'finish', outcome: 'resolved', claim: { paid: true }, evidence: [payout.id] };
    const refund = evidence('read_refund');
    if (!refund) return { type: 'call', calls: [{ tool: 'read_refund', args: { refundId } }] };
    if (refund.facts['refund.status'] !== 'REQUESTED') return { type: 'escalate', reason: `refund is ${refund.facts['refund.status']}` };
    const large = Number(refund.facts['refund.amountCents']) > 10_000;
    return { type: 'call', calls: [{ tool: large ? 'pay_large_refund' : 'pay_refund', args: { refundId } }] };
  },
  // Our service's 4xx is a definite no; anything else may be passing.
  classify(err) {
    if (err instanceof ServiceError)
      return err.status >= 500 || err.status === 429 ? new ToolUnavailable(err.message) : new ToolRefused(err.message, err.body?.error);
    if (err instanceof Error && err.name === 'TimeoutError') return new ToolUnavailable(err.message, true);
    return undefined;
  },
});

const worker = await createAgentWorker({
  workflowsPath: fileURLToPath(new URL('./workflows.mjs', import.meta.url)),
  implementations: [implementation],
  deps: { refunds: refundsClient(process.env.REFUNDS_URL) },
  blobDir: fileURLToPath(new URL('./blobs', import.meta.url)),
  approvers: JSON.parse(readFileSync(process.env.AGENT_APPROVERS_FILE, 'utf8')),
});
process.on('SIGTERM', () => worker.shutdown());
process.stdout.write('WORKER_READY\n');
await worker.run();
process.exit(0);
