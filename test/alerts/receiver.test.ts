// The alert receiver's door, over real HTTP on loopback: who gets in (bearer, basic auth, as
// Alertmanager's http_config sends them), what is refused before anything is started (a wrong
// path or method, an oversized, malformed or unmapped body), what a "resolved" notification does
// (recorded as a note, starts nothing) and what a notification becomes (a case id carrying the
// group, an unsigned note). The starter here records what it is asked; the runs themselves are
// in alert-loop.test.ts. Last, `agent alerts` as a process: it listens and refuses a stranger.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { readyLine } from '../support/child-lines.js';
import { waitUntil } from '../support/wait.js';
import { RunNotFoundError } from '../../client/agent-errors.js';
import { receiverAuthFromEnv } from '../../client/alerts/auth.js';
import { createAlertReceiver, type AlertReceiver, type AlertRunStarter } from '../../client/alerts/receiver.js';
import { alertCaseId, groupIdOf, splitAlertCaseId } from '../../client/alerts/webhook.js';
import { alertMapping } from '../../domains/alerts/mapping.js';
import type { RunInput } from '../../workflows/run-input.js';

const TOKEN = 'a-token-of-at-least-sixteen-characters';
/** The receiver's body limit (docs/alerts.md: 1 MB). */
const LIMIT = 1_000_000;
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

function recorder() {
  const starts: RunInput[] = [];
  const notes: { runId: string; text: string; by?: string; signed: boolean }[] = [];
  const seen = new Set<string>();
  /** Runs that have ended, with when. */
  const closed = new Map<string, string>();
  const agent: AlertRunStarter = {
    start: async (input) => {
      starts.push(input);
      const runId = `${input.domain}-${input.caseId}`;
      const attached = seen.has(runId);
      seen.add(runId);
      return { runId, attached, running: true };
    },
    note: async (runId, text, options) => {
      notes.push({ runId, text, ...(options.by ? { by: options.by } : {}), signed: options.key !== undefined });
      return { runId, accepted: true, trusted: false, signed: false, by: options.by ?? '' };
    },
    // Every run it started is open unless a test closed it; the episodes over closed runs are in episodes.test.ts.
    describe: async (runId) => {
      if (!seen.has(runId)) throw new RunNotFoundError(runId);
      return { closeTime: closed.get(runId) ?? null };
    },
  };
  return { agent, starts, notes, seen, closed };
}

function body(incident: string, overrides: Record<string, unknown> = {}) {
  const labels = { alertname: 'ServiceMemoryHigh', case_id: incident, service: 'cache' };
  return {
    version: '4',
    groupKey: `{}:{case_id="${incident}"}`,
    status: 'firing',
    receiver: 'agent',
    groupLabels: { case_id: incident },
    commonLabels: labels,
    commonAnnotations: {},
    alerts: [{ status: 'firing', labels, annotations: { summary: 'cache memory high' }, startsAt: '2026-01-01T00:00:00Z' }],
    ...overrides,
  };
}

let receiver: AlertReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function serve(auth: Parameters<typeof createAlertReceiver>[0]['auth']) {
  const rec = recorder();
  receiver = createAlertReceiver({ agent: rec.agent, auth, map: alertMapping() });
  const { url } = await receiver.listen(0);
  const post = async (payload: unknown, headers: Record<string, string> = {}, target = url, method = 'POST') => {
    const res = await fetch(target, {
      method,
      headers,
      ...(method === 'POST' ? { body: typeof payload === 'string' ? payload : JSON.stringify(payload) } : {}),
    });
    return { status: res.status, body: (await res.json()) as { outcome: string; runId?: string; reason?: string } };
  };
  return { ...rec, url, post };
}

describe('the alert receiver', () => {
  it('a bearer token as Alertmanager sends it starts the group once; re-sends attach; the notification is one unsigned note', async () => {
    const r = await serve({ bearer: TOKEN });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const replies = [await r.post(body('INC-7'), auth), await r.post(body('INC-7'), auth), await r.post(body('INC-7'), auth)];
    const caseId = alertCaseId('INC-7', groupIdOf('{}:{case_id="INC-7"}'));
    expect(replies.map((x) => [x.status, x.body.outcome, x.body.runId])).toEqual([
      [200, 'started', `alerts-${caseId}`],
      [200, 'attached', `alerts-${caseId}`],
      [200, 'attached', `alerts-${caseId}`],
    ]);
    expect(new Set(r.starts.map((s) => s.caseId))).toEqual(new Set([caseId]));
    expect(splitAlertCaseId(caseId)).toEqual({ base: 'INC-7', groupId: groupIdOf('{}:{case_id="INC-7"}'), episode: 0 });
    expect(splitAlertCaseId(alertCaseId('INC-7', groupIdOf('k'), 12))).toEqual({ base: 'INC-7', groupId: groupIdOf('k'), episode: 12 });
    await receiver?.close();
    expect(r.notes).toHaveLength(1);
    expect(r.notes[0]).toMatchObject({ runId: `alerts-${caseId}`, by: 'alertmanager', signed: false });
    expect(r.notes[0]?.text).toContain('Untrusted text');
    expect(r.notes[0]?.text).toContain('summary: cache memory high');
  });

  it('two groups of one incident (another route, another group key) are two runs', async () => {
    const r = await serve({ bearer: TOKEN });
    const auth = { authorization: `Bearer ${TOKEN}` };
    await r.post(body('INC-8'), auth);
    await r.post(body('INC-8', { groupKey: '{}/{severity="page"}:{case_id="INC-8"}' }), auth);
    expect(new Set(r.starts.map((s) => s.caseId)).size).toBe(2);
  });

  it('basic auth works when configured, and nothing but the exact secret does', async () => {
    const r = await serve({ basic: { username: 'alertmanager', password: 's3cret-pass' } });
    const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });
    const refused = [
      await r.post(body('INC-9')),
      await r.post(body('INC-9'), basic('alertmanager', 's3cret-pas')),
      await r.post(body('INC-9'), basic('other', 's3cret-pass')),
      await r.post(body('INC-9'), { authorization: 'Bearer s3cret-pass' }),
    ];
    expect(r.starts).toEqual([]);
    expect(refused.map((x) => x.status)).toEqual([401, 401, 401, 401]);
    expect((await r.post(body('INC-9'), basic('alertmanager', 's3cret-pass'))).body.outcome).toBe('started');
  });

  it('refuses a wrong path or method, or a malformed body, before anything starts', async () => {
    const r = await serve({ bearer: TOKEN });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const replies = [
      await r.post(body('INC-10'), auth, r.url.replace('/alerts', '/other')),
      await r.post(undefined, auth, r.url, 'GET'),
      await r.post('not json', auth),
      await r.post(body('INC-10', { status: 'exploded' }), auth),
    ];
    expect(r.starts).toEqual([]);
    expect(replies.map((x) => x.status)).toEqual([404, 405, 400, 400]);
  });

  // Over a connection written by hand, so the test decides how much of a body is ever sent: a
  // receiver that read bodies to their end before answering would answer none of these.
  it('answers a stranger from the headers alone, and drops a body past the limit instead of reading it to its end', async () => {
    const r = recorder();
    const mounted = createAlertReceiver({ agent: r.agent, auth: { bearer: TOKEN }, map: alertMapping() });
    // Mounted in a server of the test's own with no keep-alive timer: a connection dropped here
    // was dropped by the receiver, not by Node closing a connection idle for five seconds.
    const server = createServer((req, res) => mounted.handle(req, res));
    server.keepAliveTimeout = 0;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const hostname = '127.0.0.1';
    const port = (server.address() as AddressInfo).port;
    const sockets: Socket[] = [];
    const open = async (headers: string) => {
      const socket = connect(Number(port), hostname);
      sockets.push(socket);
      let received = '';
      let closed = false;
      socket.setEncoding('utf8').on('data', (c: string) => (received += c));
      // A reset after the answer is the server dropping the connection, which is what is awaited.
      socket.on('error', () => {});
      socket.once('close', () => (closed = true));
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(`POST /alerts HTTP/1.1\r\nhost: ${hostname}\r\n${headers}\r\n`);
      return {
        socket,
        answer: () => waitUntil(() => received.includes('\r\n\r\n') && received.split('\r\n')[0], 'the status line'),
        dropped: () => waitUntil(() => closed, 'the server to drop the connection'),
      };
    };
    // One chunk of the declared-length-free encoding, its data sent whole and its closing CRLF
    // held back: the server has read all there is when it decides.
    const chunkOver = `${(LIMIT + 1).toString(16)}\r\n${'x'.repeat(LIMIT + 1)}`;

    try {
      // No secret: 401 before a byte of the body is sent, and the body is then not kept past the limit.
      const stranger = await open('transfer-encoding: chunked\r\n');
      expect(await stranger.answer()).toBe('HTTP/1.1 401 Unauthorized');
      stranger.socket.write(chunkOver);
      await stranger.dropped();

      const auth = `authorization: Bearer ${TOKEN}\r\n`;
      // A declared length over the limit: 413 with nothing of the body sent.
      const declared = await open(`${auth}content-type: application/json\r\ncontent-length: ${2 * LIMIT}\r\n`);
      expect(await declared.answer()).toBe('HTTP/1.1 413 Payload Too Large');
      await declared.dropped();
      // A body that grows past the limit: 413 and the connection dropped, though the body never ended.
      const growing = await open(`${auth}content-type: application/json\r\ntransfer-encoding: chunked\r\n`);
      growing.socket.write(chunkOver);
      expect(await growing.answer()).toBe('HTTP/1.1 413 Payload Too Large');
      await growing.dropped();
      expect(r.starts).toEqual([]);
    } finally {
      // Only a failing test leaves one open; the server's close waits for its connections.
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a group the mapping does not know is ignored (200, nothing started); a "resolved" one is recorded on the run, not started', async () => {
    const r = await serve({ bearer: TOKEN });
    const auth = { authorization: `Bearer ${TOKEN}` };
    // INC-11's run exists (another receiver started it); INC-13 never had one.
    r.seen.add(`alerts-${alertCaseId('INC-11', groupIdOf('{}:{case_id="INC-11"}'))}`);
    const noCase = await r.post(body('INC-11', { groupLabels: {}, commonLabels: { alertname: 'Other' } }), auth);
    const badCase = await r.post(body('rm -rf /'), auth);
    const resolved = await r.post(body('INC-11', { status: 'resolved' }), auth);
    const resolvedNoRun = await r.post(body('INC-13', { status: 'resolved' }), auth);
    expect(r.starts).toEqual([]);
    expect([noCase.status, noCase.body.outcome, badCase.status, badCase.body.outcome]).toEqual([200, 'ignored', 200, 'ignored']);
    expect([resolved.status, resolved.body.outcome, resolved.body.runId]).toEqual([
      200,
      'recorded',
      `alerts-${alertCaseId('INC-11', groupIdOf('{}:{case_id="INC-11"}'))}`,
    ]);
    expect([resolvedNoRun.status, resolvedNoRun.body.outcome]).toEqual([200, 'ignored']);
    // The run that fixed INC-12 has ended: its "resolved" is answered, and noted nowhere.
    const ended = `alerts-${alertCaseId('INC-12', groupIdOf('{}:{case_id="INC-12"}'))}`;
    r.seen.add(ended);
    r.closed.set(ended, new Date().toISOString());
    const resolvedEnded = await r.post(body('INC-12', { status: 'resolved' }), auth);
    expect([resolvedEnded.status, resolvedEnded.body.outcome, resolvedEnded.body.reason, resolvedEnded.body.runId]).toEqual([
      200,
      'ignored',
      "the group's run has ended",
      ended,
    ]);
    await receiver?.close();
    expect(r.notes.map((n) => [n.runId, n.text.split('\n')[0]])).toEqual([
      [
        `alerts-${alertCaseId('INC-11', groupIdOf('{}:{case_id="INC-11"}'))}`,
        'Alertmanager notification, status resolved, 1 alert(s). Untrusted text from alert labels and annotations:',
      ],
    ]);
  });

  it('its secret comes from the environment and must be a real one', () => {
    expect(receiverAuthFromEnv({ AGENT_ALERTS_TOKEN: TOKEN })).toEqual({ bearer: TOKEN });
    expect(receiverAuthFromEnv({ AGENT_ALERTS_BASIC: 'am:pass:with:colons:16+' })).toEqual({ basic: { username: 'am', password: 'pass:with:colons:16+' } });
    expect(receiverAuthFromEnv({ AGENT_ALERTS_TOKEN: 'short' })).toContain('at least 16');
    // Basic auth's password is held to the token's length: no one-character door beside a 16-character one.
    expect(receiverAuthFromEnv({ AGENT_ALERTS_BASIC: 'am:p' })).toBe("AGENT_ALERTS_BASIC's password (after the first colon) must be at least 16 characters");
    expect(receiverAuthFromEnv({ AGENT_ALERTS_BASIC: `am:${'p'.repeat(15)}` })).toContain('at least 16');
    expect(receiverAuthFromEnv({ AGENT_ALERTS_BASIC: `am:${'p'.repeat(16)}` })).toEqual({ basic: { username: 'am', password: 'p'.repeat(16) } });
    expect(receiverAuthFromEnv({})).toContain('needs a secret');
    expect(receiverAuthFromEnv({ AGENT_ALERTS_TOKEN: TOKEN, AGENT_ALERTS_BASIC: 'a:b' })).toContain('not both');
  });
});

describe('`agent alerts`', () => {
  it('refuses to run without a secret, and once running refuses an unauthenticated post', async () => {
    const env = {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
      AGENT_TASK_QUEUE: 'alerts-cli-test',
    };
    // node itself, not npx, so the pid killed below is the receiver's own.
    const args = ['--import', 'tsx', 'client/bin.ts', 'alerts', '--mapping', 'domains/alerts/mapping.ts', '--port', '0', '--json'];
    const noSecret = spawn(process.execPath, args, { cwd: repoRoot, env: { ...env, AGENT_ALERTS_TOKEN: '' } });
    let stderr = '';
    noSecret.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => noSecret.once('exit', resolve));
    expect(code).not.toBe(0);
    expect(stderr).toContain('AGENT_ALERTS_TOKEN');

    const child = spawn(process.execPath, args, { cwd: repoRoot, env: { ...env, AGENT_ALERTS_TOKEN: TOKEN } });
    try {
      const listening = await readyLine(child, 'agent alerts', (l) => l.includes('"listening"'));
      const url = (JSON.parse(listening) as { listening: string }).listening;
      const res = await fetch(url, { method: 'POST', body: JSON.stringify(body('INC-12')) });
      expect(res.status).toBe(401);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});
