// Alertmanager silences through its v2 API, for the `silence_alert_group` effect. Creating a
// silence is not idempotent at Alertmanager (each POST makes a new one), so the effect's
// idempotency key rides in the silence's comment, and the readback finds it there with
// `GET /api/v2/silences`: a lost reply is read back, never sent again blind. Expiring is
// `DELETE /api/v2/silence/{id}` of the silences under the key, read back the same way: done when
// none under the key is still in force.
import { z } from 'zod';
import { ToolRefused, ToolUnavailable } from '../../worker/public.js';

export const Matcher = z.object({ name: z.string(), value: z.string(), isRegex: z.boolean(), isEqual: z.boolean().optional() });
export type Matcher = z.infer<typeof Matcher>;

const GettableSilence = z.object({
  id: z.string(),
  matchers: z.array(Matcher),
  startsAt: z.string(),
  endsAt: z.string(),
  createdBy: z.string(),
  comment: z.string(),
  status: z.object({ state: z.enum(['active', 'pending', 'expired']) }),
});
export type Silence = z.infer<typeof GettableSilence>;

/** How the key is written into a comment, and found again. */
export const keyTag = (key: string) => `[agent-key:${key}]`;

export interface SilenceRequest {
  matchers: Matcher[];
  endsAt: string;
  createdBy: string;
  comment: string;
  idempotencyKey: string;
}

type Options = { timeoutMs: number; signal?: AbortSignal };

export async function createSilence(server: string, req: SilenceRequest, options: Options): Promise<Silence> {
  // A silence under this key that is still in force is the effect already done.
  const existing = await silenceByKey(server, req.idempotencyKey, options);
  if (existing) return existing;
  const body = {
    matchers: req.matchers,
    startsAt: new Date().toISOString(),
    endsAt: req.endsAt,
    createdBy: req.createdBy,
    comment: `${req.comment} ${keyTag(req.idempotencyKey)}`,
  };
  const res = await call(server, '/api/v2/silences', { method: 'POST', body: JSON.stringify(body) }, options);
  const id = z.object({ silenceID: z.string() }).safeParse(res);
  if (!id.success) throw new ToolUnavailable('Alertmanager accepted the silence without naming it');
  const made = await silenceByKey(server, req.idempotencyKey, options);
  if (!made) throw new ToolUnavailable(`Alertmanager named silence ${id.data.silenceID} but does not list it`);
  return made;
}

/** The silence in force (active or pending) whose comment carries the key, if any. */
export async function silenceByKey(server: string, key: string, options: Options): Promise<Silence | undefined> {
  const listed = z.array(GettableSilence).safeParse(await call(server, '/api/v2/silences', { method: 'GET' }, options));
  if (!listed.success) throw new ToolUnavailable('Alertmanager listed silences in a shape it does not document');
  return listed.data.find((s) => s.status.state !== 'expired' && s.comment.includes(keyTag(key)));
}

/** Every silence whose comment carries the key, in any state, oldest first. */
export async function silencesByKey(server: string, key: string, options: Options): Promise<Silence[]> {
  const listed = z.array(GettableSilence).safeParse(await call(server, '/api/v2/silences', { method: 'GET' }, options));
  if (!listed.success) throw new ToolUnavailable('Alertmanager listed silences in a shape it does not document');
  return listed.data.filter((s) => s.comment.includes(keyTag(key))).sort((a, b) => a.startsAt.localeCompare(b.startsAt));
}

/**
 * Expires every silence under the key that is still in force and returns the latest, read back as
 * expired. Expiring an expired silence is nothing to do, so a second call (a retry after a lost
 * reply) changes nothing; no silence under the key at all is a refusal, not a success.
 */
export async function expireSilences(server: string, key: string, options: Options): Promise<Silence> {
  const before = await silencesByKey(server, key, options);
  if (before.length === 0) throw new ToolRefused("no silence carries this run's key: there is nothing to expire", 'no_silence');
  for (const s of before.filter((s) => s.status.state !== 'expired')) {
    await call(server, `/api/v2/silence/${encodeURIComponent(s.id)}`, { method: 'DELETE' }, options, { emptyOk: true });
  }
  const after = await silencesByKey(server, key, options);
  const still = after.filter((s) => s.status.state !== 'expired');
  if (still.length > 0) throw new ToolUnavailable(`Alertmanager still lists silence ${still.map((s) => s.id).join(', ')} as ${still[0]?.status.state}`);
  const latest = after.at(-1);
  if (!latest) throw new ToolUnavailable('Alertmanager no longer lists the silences it just expired');
  return latest;
}

async function call(
  server: string,
  path: string,
  init: { method: string; body?: string },
  options: Options,
  answer: { emptyOk?: boolean } = {},
): Promise<unknown> {
  let res: Response;
  try {
    const signals = [AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])];
    res = await fetch(new URL(path, server), { ...init, headers: { 'content-type': 'application/json' }, signal: AbortSignal.any(signals) });
  } catch (err) {
    const timedOut = err instanceof Error && err.name === 'TimeoutError';
    throw new ToolUnavailable(`Alertmanager at ${server} ${timedOut ? 'did not answer in time' : 'is unreachable'}`, timedOut);
  }
  const text = await res.text();
  if (res.status >= 500 || res.status === 429) throw new ToolUnavailable(`Alertmanager answered ${res.status}`);
  if (!res.ok) throw new ToolRefused(`Alertmanager refused: ${res.status} ${text.slice(0, 160)}`, 'alertmanager_refused');
  // DELETE answers 200 with no body.
  if (answer.emptyOk && text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ToolUnavailable(`Alertmanager answered ${res.status} with a body that is not JSON`);
  }
}
