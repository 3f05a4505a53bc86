// What a payload the worker could not decode becomes: a small, well-formed value that says so.
// The worker's quarantine codec (worker/quarantine-codec.ts) puts it in place of the payload, so
// the workflow sandbox always receives something it can convert, and the quarantine interceptors
// (workflows/quarantine-interceptors.ts) and the handlers' schemas refuse it. A leaf shared by
// both sides: no imports, workflow-safe.

/** The one key of a marker object; no message, signal or input of the engine has a field of this name. */
export const UNDECODABLE_KEY = '$undecodable';

/** Why a payload was quarantined. Both fields are short and drawn from a fixed alphabet, never the payload's text. */
export interface UndecodableInfo {
  /** The payload's `encoding` metadata, when it is a plain name; else `(unreadable)`. */
  encoding: string;
  /** `unknown-key`, `does-not-decrypt`, `unknown-encoding`, `not-convertible` or `codec-refused`. */
  reason: UndecodableReason;
  /** The key id a sealed payload names, when it is a plain name. */
  keyId?: string;
}

export type UndecodableReason = 'unknown-key' | 'does-not-decrypt' | 'unknown-encoding' | 'not-convertible' | 'codec-refused';

export type UndecodableMarker = { [UNDECODABLE_KEY]: UndecodableInfo };

const PLAIN = /^[A-Za-z0-9._/-]{1,64}$/;

/** A name from a payload's metadata as it may be logged: plain and short, or `(unreadable)`. */
export function plainName(text: unknown): string {
  return typeof text === 'string' && PLAIN.test(text) ? text : '(unreadable)';
}

export function undecodableMarker(info: UndecodableInfo): UndecodableMarker {
  return { [UNDECODABLE_KEY]: info };
}

export function isUndecodable(value: unknown): value is UndecodableMarker {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const info = (value as Record<string, unknown>)[UNDECODABLE_KEY];
  return info !== null && typeof info === 'object';
}

/** The first marker among a handler's arguments: the codec replaces whole payloads, so only top-level arguments can be one. */
export function firstUndecodable(args: readonly unknown[]): UndecodableInfo | undefined {
  for (const arg of args) if (isUndecodable(arg)) return arg[UNDECODABLE_KEY];
  return undefined;
}

/**
 * One line for a log or an error: encoding, key id and reason. Each is passed through plainName
 * again, since a client can also send a well-formed payload that merely looks like a marker.
 */
export function describeUndecodable(info: UndecodableInfo): string {
  const key = info.keyId !== undefined ? ` sealed with key "${plainName(info.keyId)}"` : '';
  return `a payload of encoding "${plainName(info.encoding)}"${key} (${plainName(info.reason)})`;
}
