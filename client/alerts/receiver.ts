// The alert receiver: takes Alertmanager's webhook, authenticates it, maps the alert group to a
// domain and a case with a function the caller supplies (the engine knows no domain), and starts
// the group's run through the client's one start path. The run's case id carries the group id and
// the episode (webhook.ts, episodes.ts), so every re-send of the group (repeat_interval, HA peers)
// reaches the same workflow id and the server's id uniqueness leaves exactly one run, while a
// recurrence after that run closed starts the next episode. A new run gets the notification as an
// unsigned note: untrusted text, never facts. Usable inside a team's own HTTP service (`handle`)
// or on its own (`listen`, what `agent alerts` runs).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { RunInput } from '../../workflows/run-input.js';
import { InvalidRunInputError, RunNotFoundError, RunSettingsConflictError } from '../agent-errors.js';
import type { NoteOptions, NoteResult, RunDescription, StartedRun } from '../agent-client-types.js';
import { formatZodError } from '../errors.js';
import { runIdFor } from '../start-run.js';
import { authorized, type ReceiverAuth } from './auth.js';
import { firingInstances, recurredAfter } from './episodes.js';
import { alertCaseId, alertGroupOf, MAX_EPISODE, untrustedNoteOf, WebhookBody, type AlertGroup } from './webhook.js';

export type { AlertGroup } from './webhook.js';

/** What the domain says a group is: the run to start (its case before the group id is added), or why none. */
export type AlertMapping = (group: AlertGroup) => { run: Omit<RunInput, 'caseId'> & { case: string } } | { ignore: string };

/** The part of AgentClient the receiver uses. */
export interface AlertRunStarter {
  start(input: RunInput): Promise<Pick<StartedRun, 'runId' | 'attached' | 'running'>>;
  note(runId: string, text: string, options: NoteOptions): Promise<NoteResult>;
  /** When a closed run closed: whether a notification is a new episode depends on it. */
  describe(runId: string): Promise<Pick<RunDescription, 'closeTime'>>;
}

/** What createAlertReceiver needs: where runs start, who may post, and how a group becomes a run. */
export interface AlertReceiverOptions {
  agent: AlertRunStarter;
  auth: ReceiverAuth;
  map: AlertMapping;
  /** The path Alertmanager posts to (default /alerts). */
  path?: string;
  /** Told about each notification's outcome and each note that could not be added. */
  log?: (line: string) => void;
}

export interface Reply {
  status: number;
  body: { outcome: string; [k: string]: unknown };
}

const MAX_BODY_BYTES = 1_000_000;
/** How many groups a receiver remembers; an older group's re-send asks the server again. */
const REMEMBERED_GROUPS = 10_000;

type Episode = Pick<StartedRun, 'runId' | 'attached' | 'running'> & { episode: number };

/** What this receiver knows of a group: the alert instances it has taken to the server, and where they went. */
interface GroupMemory {
  instances: Set<string>;
  /** The last trip to the server for the group; the next waits for it, so one group is decided in order. */
  current: Promise<Episode>;
  settled?: Episode;
}

/** An alert receiver: answer Alertmanager's posts from its own server, or from yours. */
export interface AlertReceiver {
  /** Answers one HTTP request (a team's own server can route its webhook path here). */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** One notification, already read: what `handle` does after reading the body. */
  receive(authorization: string | undefined, body: string): Promise<Reply>;
  listen(port: number, host?: string): Promise<{ url: string }>;
  /** Stops listening and waits for the notes still being added. */
  close(): Promise<void>;
}

/**
 * The receiver: each authorised notification of a group the mapping knows starts (or attaches
 * to) the group's run for its episode; a resolved group is a note on an open run. Answers in
 * the table of docs/alerts.md.
 */
export function createAlertReceiver(options: AlertReceiverOptions): AlertReceiver {
  const path = options.path ?? '/alerts';
  const log = options.log ?? (() => {});
  const pending = new Set<Promise<void>>();
  let server: Server | undefined;
  /** The groups this receiver has taken to the server, by domain, case and group id, oldest first (a Map keeps insertion order). */
  const groups = new Map<string, GroupMemory>();
  const remember = (key: string, memory: GroupMemory) => {
    groups.delete(key);
    groups.set(key, memory);
    if (groups.size > REMEMBERED_GROUPS) groups.delete(groups.keys().next().value as string);
  };

  async function receive(authorization: string | undefined, raw: string): Promise<Reply> {
    // Authentication first: an unauthenticated sender learns nothing about what it sent.
    if (!authorized(authorization, options.auth)) return { status: 401, body: { outcome: 'refused', error: 'unauthenticated' } };
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return { status: 400, body: { outcome: 'refused', error: 'malformed_json' } };
    }
    const parsed = WebhookBody.safeParse(json);
    if (!parsed.success) return { status: 400, body: { outcome: 'refused', error: 'invalid_body', detail: formatZodError(parsed.error) } };
    const body = parsed.data;
    const group = alertGroupOf(body);

    let mapped: ReturnType<AlertMapping>;
    try {
      mapped = options.map(group);
    } catch (err) {
      return { status: 422, body: { outcome: 'unmapped', error: `the alert mapping failed: ${err instanceof Error ? err.message : String(err)}` } };
    }
    if ('ignore' in mapped) return { status: 200, body: { outcome: 'ignored', reason: mapped.ignore, groupId: group.groupId } };
    const { case: base, ...rest } = mapped.run;
    const key = `${rest.domain}/${base}/${group.groupId}`;
    const known = groups.get(key);

    // Alertmanager's own "resolved" is recorded on the group's latest run while it is open; it
    // decides nothing. A run that has ended (most often, the one that fixed it) takes no notes.
    if (body.status === 'resolved') {
      let runId: string | undefined;
      let closed = false;
      try {
        runId = known?.settled?.runId ?? (await latestEpisode(rest, base, group.groupId));
        closed = runId !== undefined && (await options.agent.describe(runId)).closeTime !== null;
      } catch (err) {
        return { status: 503, body: { outcome: 'unavailable', error: err instanceof Error ? err.message : String(err) } };
      }
      if (runId === undefined) return { status: 200, body: { outcome: 'ignored', reason: 'no run of this group to record it on', groupId: group.groupId } };
      if (closed) return { status: 200, body: { outcome: 'ignored', reason: "the group's run has ended", runId } };
      track(addNote(runId, body));
      return { status: 200, body: { outcome: 'recorded', runId } };
    }

    // A re-send of alerts this receiver has already taken to the server is answered from memory:
    // re-sends come by the thousand under load, and each would otherwise cost the server a start
    // and a describe. Only an optimisation: the server's id uniqueness is what keeps one run per
    // episode, across receivers and restarts.
    const instances = firingInstances(group);
    if (known && instances.every((i) => known.instances.has(i))) {
      // Still being started: the sender that brought it gets the answer, and a 5xx to retry.
      if (!known.settled) return { status: 202, body: { outcome: 'coalesced', groupId: group.groupId } };
      return { status: 200, body: { outcome: 'attached', runId: known.settled.runId, running: known.settled.running } };
    }
    // New alert instances: the server says whether the group's run is open (attach) or closed
    // (a recurrence starts the next episode), after any trip already under way for the group.
    const previous = known?.current.catch(() => undefined) ?? Promise.resolve(undefined);
    const current = previous.then((before) => episodeFor(rest, base, group, before?.episode ?? 0));
    const memory: GroupMemory = { instances: new Set([...(known?.instances ?? []), ...instances]), current };
    remember(key, memory);
    try {
      const started = await current;
      memory.settled = started;
      if (!started.attached) track(addNote(started.runId, body));
      const outcome = started.attached ? 'attached' : 'started';
      log(`${outcome} ${started.runId} for group ${group.groupId}`);
      return { status: 200, body: { outcome, runId: started.runId, running: started.running } };
    } catch (err) {
      if (groups.get(key) === memory) groups.delete(key);
      if (err instanceof InvalidRunInputError) return { status: 422, body: { outcome: 'unmapped', error: err.message } };
      if (err instanceof RunSettingsConflictError) return { status: 409, body: { outcome: 'conflict', error: err.message } };
      // The server or the connection: Alertmanager retries a 5xx, and the retry is deduplicated.
      log(`could not start a run for group ${group.groupId}: ${err instanceof Error ? err.message : String(err)}`);
      return { status: 503, body: { outcome: 'unavailable', error: err instanceof Error ? err.message : String(err) } };
    }
  }

  /**
   * The run this notification belongs to, from episode `from` on: an open run is it, a closed run
   * is it unless a firing alert began after it closed (then the next episode is tried). Costs a
   * start and a describe per closed episode walked, which only a receiver that does not remember
   * the group pays.
   */
  async function episodeFor(rest: Omit<RunInput, 'caseId'>, base: string, group: AlertGroup, from: number): Promise<Episode> {
    for (let episode = from; episode <= MAX_EPISODE; episode++) {
      const caseId = alertCaseId(base, group.groupId, episode);
      let started: Pick<StartedRun, 'runId' | 'attached' | 'running'>;
      try {
        started = await options.agent.start({ ...rest, caseId } as RunInput);
      } catch (err) {
        // A closed episode started under other settings (the mapping's model, budgets or effects,
        // or the task queue, changed since) conflicts with nothing: no start can change it. Were
        // this a 409, no recurrence of the group could ever reach its next episode; whether the
        // notification is news for it is decided below as for any closed run.
        if (!RunSettingsConflictError.isInstance(err) || err.running) throw err;
        started = { runId: runIdFor({ domain: rest.domain, caseId }), attached: true, running: false };
      }
      if (!started.attached || started.running) return { ...started, episode };
      const { closeTime } = await options.agent.describe(started.runId);
      if (closeTime === null || !recurredAfter(group, closeTime)) return { ...started, episode };
    }
    throw new InvalidRunInputError(`alert group ${group.groupId} has had ${MAX_EPISODE} episodes; clear some before it can have another`);
  }

  /** The group's latest run, walking its episodes from the first, or undefined if it never had one. */
  async function latestEpisode(rest: Omit<RunInput, 'caseId'>, base: string, groupId: string): Promise<string | undefined> {
    let latest: string | undefined;
    for (let episode = 0; episode <= MAX_EPISODE; episode++) {
      const runId = runIdFor({ domain: rest.domain, caseId: alertCaseId(base, groupId, episode) });
      try {
        await options.agent.describe(runId);
      } catch (err) {
        if (err instanceof RunNotFoundError) return latest;
        throw err;
      }
      latest = runId;
    }
    return latest;
  }

  async function addNote(runId: string, body: WebhookBody): Promise<void> {
    try {
      await options.agent.note(runId, untrustedNoteOf(body), { by: 'alertmanager' });
    } catch (err) {
      log(`could not add the notification to ${runId}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  function track(work: Promise<void>): void {
    pending.add(work);
    void work.finally(() => pending.delete(work));
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    res.on('error', () => {});
    // Everything but the body decides first, from the request line and headers: a wrong path or
    // method, or a sender without the secret, is answered at once and its body never kept.
    const url = new URL(req.url ?? '/', 'http://receiver');
    const early: Reply | undefined =
      url.pathname !== path
        ? { status: 404, body: { outcome: 'refused', error: 'not_found' } }
        : req.method !== 'POST'
          ? { status: 405, body: { outcome: 'refused', error: 'method_not_allowed' } }
          : !authorized(req.headers.authorization, options.auth)
            ? { status: 401, body: { outcome: 'refused', error: 'unauthenticated' } }
            : undefined;
    if (early) send(res, early);
    const chunks: Buffer[] = [];
    let size = 0;
    let dropped = false;
    // Past the limit the rest is never read: the connection is dropped once the answer (413,
    // unless one was already given) is written, instead of taking the body to its end.
    const drop = () => {
      dropped = true;
      chunks.length = 0;
      if (!res.headersSent) send(res, { status: 413, body: { outcome: 'refused', error: 'body_too_large' } }, { connection: 'close' });
      if (res.writableFinished) req.destroy();
      else res.once('finish', () => req.destroy()).once('close', () => req.destroy());
    };
    if (Number(req.headers['content-length']) > MAX_BODY_BYTES) return drop();
    req.on('data', (chunk: Buffer) => {
      if (dropped) return;
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return drop();
      // An early answer's body is read only to keep the connection usable, and not kept.
      if (!early) chunks.push(chunk);
    });
    req.on('end', () => {
      if (early || dropped) return;
      receive(req.headers.authorization, Buffer.concat(chunks).toString('utf8')).then(
        (reply) => send(res, reply),
        (err: unknown) => send(res, { status: 500, body: { outcome: 'failed', error: err instanceof Error ? err.message : String(err) } }),
      );
    });
  }

  return {
    handle,
    receive,
    listen(port, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        const s = createServer(handle);
        server = s;
        s.once('error', reject);
        s.listen(port, host, () => {
          const address = s.address();
          const bound = typeof address === 'object' && address ? address.port : port;
          resolve({ url: `http://${host}:${bound}${path}` });
        });
      });
    },
    async close() {
      const s = server;
      server = undefined;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
      await Promise.allSettled([...pending]);
    },
  };
}

function send(res: ServerResponse, reply: Reply, extra: Record<string, string> = {}): void {
  if (res.destroyed || res.writableEnded) return;
  const payload = JSON.stringify(reply.body);
  const headers: Record<string, string | number> = { ...extra, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
  if (reply.status === 401) headers['www-authenticate'] = 'Bearer, Basic';
  res.writeHead(reply.status, headers);
  res.end(payload);
}
