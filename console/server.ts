// The operators' console: a small web server over AgentClient, so a person can see runs, follow
// one live and approve or deny what a run waits for from a browser. It holds no private key: the
// browser signs the decision (static/console.js) and this server forwards the signed statement
// unchanged as the run's approve or deny Update, whose validator alone decides whether it counts.
// It listens on 127.0.0.1 only, answers only requests addressed to that host (no DNS rebinding),
// and sends a strict Content-Security-Policy with every page. Every page answers for a run no
// worker serves: a run's page is AgentClient.inspect rendered (the server's facts win), and the
// inbox (console/inbox.ts) never waits on one run for the others. A run on a task queue this
// engine's workers do not serve is not one of its runs (anyone who can start a workflow can make
// one look like ours): its page shows what the server knows and says so, and it is never asked.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { streamSSE } from 'hono/streaming';
import { AgentClient } from '../client/agent-client.js';
import { AgentClientError, InvalidRequestError, RequestRejectedError, RunEndedError, RunNotFoundError, WorkerTimeoutError } from '../client/agent-errors.js';
import { notServedWords, type ListFilter } from '../client/list-query.js';
import type { RunReport } from '../client/run-report.js';
import { toRunView } from '../client/to-run-view.js';
import { SignedDecision } from '../workflows/trust/statement.js';
import { InboxReader } from './inbox.js';
import { reportDone, reportFragment, reportPage } from './report-views.js';
import { inboxFragment, inboxKey, inboxPage } from './inbox-page.js';
import { errorPage } from './layout.js';
import { runsPage } from './runs-page.js';

export const CONSOLE_HOST = '127.0.0.1';
/** How often a live page asks the run for its state. */
export const DEFAULT_POLL_MS = 1_000;
/** How long a page waits for one run's state before showing it as unanswered (a run whose worker is gone). */
export const DEFAULT_STATE_TIMEOUT_MS = 5_000;

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const staticFile = (name: string) => readFileSync(new URL(`./static/${name}`, import.meta.url), 'utf8');

export interface ConsoleOptions {
  agent: AgentClient;
  /** Default 0: any free port. */
  port?: number;
  pollMs?: number;
  /** How long the inbox and live pages wait for a run's state (default 5 s). */
  stateTimeoutMs?: number;
  /** How long the inbox shows a run that did not answer before asking it again (default 10 s). */
  unansweredTtlMs?: number;
  /** Domain names offered in the runs filter. */
  domains?: readonly string[];
  /** How many waiting runs the inbox shows (default 100); past it, it says more wait. */
  inboxLimit?: number;
}

export interface RunningConsole {
  url: string;
  port: number;
  close(): Promise<void>;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err)).replace(/\s*[\r\n]+\s*/g, ' ').slice(0, 1_000);

/**
 * The app. `allowedHosts` is read on every request, so a server on port 0 can fill it in once it
 * listens; `closing` ends every live stream's polling when the server stops.
 */
export function createConsoleApp(options: ConsoleOptions & { allowedHosts: Set<string>; closing?: AbortSignal }): Hono {
  const { agent, allowedHosts, closing } = options;
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const stateTimeoutMs = options.stateTimeoutMs ?? DEFAULT_STATE_TIMEOUT_MS;
  const domains = options.domains ?? agent.domains?.map((d) => d.name) ?? [];
  const assets = { js: staticFile('console.js'), css: staticFile('console.css') };
  const inbox = new InboxReader(agent, {
    stateTimeoutMs,
    ...(options.unansweredTtlMs !== undefined ? { unansweredTtlMs: options.unansweredTtlMs } : {}),
    ...(options.inboxLimit !== undefined ? { limit: options.inboxLimit } : {}),
  });
  // A decision wakes every live page at once instead of at its next poll.
  const wake = new Wake();
  closing?.addEventListener('abort', () => wake.all());
  const app = new Hono();

  /** A run's report: asked of its worker only when its queue is this engine's; otherwise the server's facts and why. */
  const look = async (runId: string): Promise<RunReport> => {
    if (agent.serves((await agent.describe(runId)).taskQueue)) return agent.inspect(runId, { timeoutMs: stateTimeoutMs });
    const report = await agent.inspect(runId, { askWorker: false });
    const notServed = `NOT ONE OF THIS ENGINE'S RUNS: ${notServedWords(report.taskQueue, agent.servedQueues)}; it was not asked, and nothing it says is shown`;
    return { ...report, notices: [notServed, ...report.notices] };
  };

  app.use('*', async (c, next) => {
    // A page on another site that resolves its own name to 127.0.0.1 would send its own Host.
    if (!allowedHosts.has(c.req.header('host') ?? '')) return c.text('this console answers only on its own address', 421);
    await next();
    c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('X-Frame-Options', 'DENY');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    if (!c.res.headers.get('Cache-Control')) c.header('Cache-Control', 'no-store');
  });

  app.get('/static/console.js', (c) => c.body(assets.js, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  app.get('/static/console.css', (c) => c.body(assets.css, 200, { 'Content-Type': 'text/css; charset=utf-8' }));
  app.get('/favicon.ico', (c) => c.body(null, 204));

  app.get('/', async (c) => {
    const filter: ListFilter = {};
    for (const field of ['domain', 'phase', 'terminal'] as const) {
      const value = c.req.query(field)?.trim();
      if (value) filter[field] = value;
    }
    try {
      const [rows, queues] = await Promise.all([agent.list(filter), agent.queueStatus()]);
      return c.html(runsPage(rows, filter, domains, undefined, await agent.rowNotices(rows), queues));
    } catch (err) {
      return c.html(runsPage([], filter, domains, message(err)), err instanceof InvalidRequestError ? 400 : 502);
    }
  });

  app.get('/runs/:runId', async (c) => {
    const runId = c.req.param('runId');
    try {
      return c.html(reportPage(await look(runId), Date.now()));
    } catch (err) {
      return c.html(errorPage(`Run ${runId}`, message(err)), statusOf(err));
    }
  });

  app.get('/runs/:runId/live', (c) => {
    const runId = c.req.param('runId');
    return live(c, pollMs, closing, wake, async () => {
      const report = await look(runId);
      const view = report.view ? toRunView(report.view) : null;
      // Rendered again only when the run changed (time left counted in 10 s steps), so a page
      // whose run is idle is left alone and an operator can select text in it.
      const key = JSON.stringify({
        run: view ? { ...view, budgets: null } : null,
        left: view ? { ...view.budgets.left, msLeft: Math.floor(view.budgets.left.msLeft / 10_000) } : null,
        server: [report.status, report.phase, report.terminal, report.notices.map((n) => n.replace(/\(the last poll was .*? ago\)/, ''))],
      });
      return { key, render: async () => String(await reportFragment(report, Date.now())), done: reportDone(report) };
    });
  });

  app.get('/inbox', async (c) => {
    try {
      return c.html(inboxPage(await inbox.readInbox(), Date.now()));
    } catch (err) {
      return c.html(errorPage('Approval inbox', message(err)), 502);
    }
  });

  app.get('/inbox/live', (c) =>
    live(c, pollMs * 2, closing, wake, async () => {
      const read = await inbox.readInbox();
      // Sent again only when a request came, went or changed (not because an evidence age ticked).
      const key = JSON.stringify([
        read.more,
        ...read.entries.map((e) =>
          e.view?.awaiting ? inboxKey(e.row.runId, e.view.awaiting) : (e.error ?? e.notice?.replace(/\(the last poll was .*? ago\)/, '') ?? ''),
        ),
      ]);
      return { key, render: async () => String(await inboxFragment(read, Date.now())), done: false };
    }),
  );

  app.post('/api/decisions', bodyLimit({ maxSize: 16 * 1024, onError: (c) => c.json({ ok: false, error: 'a decision is at most 16 KB' }, 413) }), async (c) => {
    // Cross-site forms cannot send JSON without a preflight this server never answers.
    if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('application/json'))
      return c.json({ ok: false, error: 'send the signed decision as application/json' }, 415);
    const origin = c.req.header('origin');
    if (origin !== undefined && !allowedHosts.has(origin.replace(/^http:\/\//, '')))
      return c.json({ ok: false, error: 'cross-origin decisions are refused' }, 403);
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json({ ok: false, error: 'the body is not JSON' }, 400);
    }
    const parsed = SignedDecision.safeParse(body);
    if (!parsed.success) return c.json({ ok: false, error: 'not a signed decision ({statement, signature} with a decision statement)' }, 400);
    const { runId, decision } = parsed.data.statement;
    try {
      // Forwarded as it came: the signature covers the statement's canonical bytes.
      const result = await agent.sendSignedDecision(runId, body as SignedDecision, decision);
      // The Update has run: the run's state already says what it did, so every page reads it now.
      inbox.forget(runId);
      wake.all();
      return c.json({ ok: true, runId, requestId: result.requestId, decision: result.decision, outcome: result.outcome, by: result.by });
    } catch (err) {
      const refused = err instanceof RequestRejectedError;
      return c.json({ ok: false, refused, runId, error: refused ? `refused by the run: ${err.reason}` : message(err) }, refused ? 409 : statusOf(err));
    }
  });

  app.notFound((c) => c.html(errorPage('Not found', `nothing at ${c.req.path}`), 404));
  app.onError((err, c) => c.html(errorPage('Error', message(err)), 500));
  return app;
}

function statusOf(err: unknown): 400 | 404 | 409 | 502 | 504 {
  if (err instanceof InvalidRequestError) return 400;
  if (err instanceof RunNotFoundError) return 404;
  if (err instanceof RunEndedError) return 409;
  if (err instanceof WorkerTimeoutError) return 504;
  if (err instanceof AgentClientError) return 409;
  return 502;
}

/** Wakes every waiting live stream at once; a stream that is not waiting reads again on its next turn. */
class Wake {
  private waiters = new Set<() => void>();

  /** Resolves after `ms`, or at the next all(), whichever comes first. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  all(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/**
 * A server-sent event stream: `read` every `everyMs`; an `update` event with the rendered
 * fragment whenever its key changes, `problem` when reading fails, `end` once it is done.
 */
function live(
  c: Context,
  everyMs: number,
  closing: AbortSignal | undefined,
  wake: Wake,
  read: () => Promise<{ key: string; render: () => Promise<string>; done: boolean }>,
): Response {
  return streamSSE(c, async (stream) => {
    let last: string | undefined;
    let problem: string | undefined;
    while (!stream.aborted && !stream.closed && !closing?.aborted) {
      try {
        const next = await read();
        problem = undefined;
        if (next.key !== last) {
          last = next.key;
          await stream.writeSSE({ event: 'update', data: await next.render() });
        }
        if (next.done) {
          await stream.writeSSE({ event: 'end', data: 'the run has ended' });
          return;
        }
      } catch (err) {
        const text = message(err);
        if (text !== problem) await stream.writeSSE({ event: 'problem', data: text });
        problem = text;
      }
      await wake.sleep(everyMs);
    }
  });
}

/** Starts the console on 127.0.0.1; `close` ends open live streams too. */
export async function startConsole(options: ConsoleOptions): Promise<RunningConsole> {
  const allowedHosts = new Set<string>();
  const closing = new AbortController();
  const app = createConsoleApp({ ...options, allowedHosts, closing: closing.signal });
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: CONSOLE_HOST, port: options.port ?? 0 }, () => resolve(s));
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  allowedHosts.add(`${CONSOLE_HOST}:${port}`);
  allowedHosts.add(`localhost:${port}`);
  return {
    url: `http://${CONSOLE_HOST}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        closing.abort();
        server.close((err) => (err ? reject(err) : resolve()));
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}
