// The team's own system of record, as a tiny HTTP service: refunds by id, payouts stored once
// per idempotency key. It prints `SERVICE_READY <url>` and logs every payout request it gets.
import { createServer } from 'node:http';

const refunds = new Map(Object.entries(JSON.parse(process.env.REFUNDS ?? '{}')));
const payouts = new Map();
const requests = [];

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const send = (status, value) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    const url = new URL(req.url ?? '/', 'http://x');
    const [, kind, id, action] = url.pathname.split('/').map(decodeURIComponent);
    if (req.method === 'GET' && kind === 'refunds' && id) {
      const r = refunds.get(id);
      return r ? send(200, { refundId: id, ...r, asOf: new Date().toISOString() }) : send(404, { error: 'refund_not_found' });
    }
    if (req.method === 'POST' && kind === 'refunds' && id && action === 'pay') {
      const { key } = JSON.parse(body || '{}');
      requests.push({ refundId: id, key });
      if (payouts.has(key)) return send(200, payouts.get(key));
      const r = refunds.get(id);
      if (!r) return send(404, { error: 'refund_not_found' });
      if (r.status !== 'REQUESTED') return send(409, { error: 'refund_not_payable' });
      const payout = { payoutId: `po_${payouts.size + 1}`, refundId: id, paidAt: new Date().toISOString() };
      payouts.set(key, payout);
      r.status = 'PAID';
      return send(200, payout);
    }
    if (req.method === 'GET' && kind === 'payouts' && id) return payouts.has(id) ? send(200, payouts.get(id)) : send(404, { error: 'no_payout' });
    if (req.method === 'GET' && kind === 'log') return send(200, { requests, payouts: [...payouts.values()] });
    send(404, { error: 'no_route' });
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`SERVICE_READY http://127.0.0.1:${server.address().port}\n`));
