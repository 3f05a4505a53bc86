// Who may start runs through the alert receiver: only a sender holding the shared secret, as
// Alertmanager sends it from its webhook's http_config (a bearer token, or basic auth). Compared
// in constant time, so the answer's timing does not leak how much of a guess was right.
import { createHash, timingSafeEqual } from 'node:crypto';

/** The shared secret Alertmanager sends: a bearer token, or basic auth. */
export type ReceiverAuth = { bearer: string } | { basic: { username: string; password: string } };

/** The Authorization header value Alertmanager sends for this auth. */
export function expectedAuthorization(auth: ReceiverAuth): string {
  return 'bearer' in auth ? `Bearer ${auth.bearer}` : `Basic ${Buffer.from(`${auth.basic.username}:${auth.basic.password}`).toString('base64')}`;
}

export function authorized(header: string | undefined, auth: ReceiverAuth): boolean {
  if (header === undefined) return false;
  // Hashing first makes both sides the same length, which timingSafeEqual needs.
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(header.trim()), digest(expectedAuthorization(auth)));
}

/** The shortest secret the receiver takes, token or basic-auth password alike: a guessable one is no door. */
const MIN_SECRET_LENGTH = 16;

/**
 * The receiver's auth from the environment: AGENT_ALERTS_TOKEN (bearer) or AGENT_ALERTS_BASIC
 * (`user:password`). Never a flag: a secret on the command line is visible to every local user.
 */
export function receiverAuthFromEnv(env: NodeJS.ProcessEnv): ReceiverAuth | string {
  const token = env.AGENT_ALERTS_TOKEN?.trim();
  const basic = env.AGENT_ALERTS_BASIC;
  if (token && basic) return 'set AGENT_ALERTS_TOKEN or AGENT_ALERTS_BASIC, not both';
  if (token) return token.length >= MIN_SECRET_LENGTH ? { bearer: token } : `AGENT_ALERTS_TOKEN must be at least ${MIN_SECRET_LENGTH} characters`;
  if (basic) {
    const at = basic.indexOf(':');
    if (at <= 0 || at === basic.length - 1) return 'AGENT_ALERTS_BASIC must be user:password';
    const password = basic.slice(at + 1);
    if (password.length < MIN_SECRET_LENGTH) return `AGENT_ALERTS_BASIC's password (after the first colon) must be at least ${MIN_SECRET_LENGTH} characters`;
    return { basic: { username: basic.slice(0, at), password } };
  }
  return 'the alert receiver needs a secret: set AGENT_ALERTS_TOKEN (Alertmanager http_config authorization) or AGENT_ALERTS_BASIC (user:password)';
}
