// The key ring behind payload encryption, read from the JSON file AGENT_PAYLOAD_KEYS names:
// `{ "current": "k2", "keys": { "k1": "<base64 of 32 bytes>", "k2": "..." } }`. New payloads are
// sealed with `current`; every key still listed opens what was sealed with it, which is how a
// key is rotated without stranding runs already in flight. The file crosses a process boundary
// (an operator writes it), so it is validated here and a bad one is one clear line, not a stack.
import { z } from 'zod';
import { AgentWorkerError } from '../activities/worker-error.js';
import { exposedMode, ownedByAnother, readTrustedFile, type TrustedFileRead } from './trusted-file.js';

/** The environment variable that names the key-ring file; unset means payloads are not encrypted. */
export const PAYLOAD_KEYS_ENV = 'AGENT_PAYLOAD_KEYS';

/** AES-256: a key is exactly this many bytes. */
export const KEY_BYTES = 32;

/** Key ids travel in every payload's metadata and in log lines: short, plain and unambiguous. */
const KeyId = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'a key id is 1 to 64 of A-Z a-z 0-9 . _ -');

const KeyMaterial = z
  .string()
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'a key is base64')
  .refine(
    (text) => Buffer.from(text, 'base64').length === KEY_BYTES,
    `a key is base64 of exactly ${KEY_BYTES} random bytes (openssl rand -base64 ${KEY_BYTES})`,
  );

export const KeyRingFile = z
  .strictObject({
    current: KeyId,
    keys: z.record(KeyId, KeyMaterial).refine((keys) => Object.keys(keys).length > 0, 'the ring holds at least one key'),
  })
  .refine((ring) => Object.hasOwn(ring.keys, ring.current), { message: 'current names a key that is not in keys', path: ['current'] });
export type KeyRingFile = z.infer<typeof KeyRingFile>;

/** A validated ring: the id new payloads are sealed under, and every key by id. */
export interface KeyRing {
  current: string;
  keys: ReadonlyMap<string, Buffer>;
}

/** The key-ring file is missing, unreadable or not a valid ring. */
export class PayloadKeyRingError extends AgentWorkerError {
  static override readonly errorName: string = 'PayloadKeyRingError';
  constructor(
    readonly source: string,
    readonly reason: string,
  ) {
    super(`payload key ring ${source}: ${reason}`);
  }
}

export type KeyRingResult = { ok: true; ring: KeyRing } | { ok: false; error: PayloadKeyRingError };

/** Validates a ring already parsed from JSON (a test's, or one a team keeps elsewhere). */
export function parseKeyRing(value: unknown, source = 'value'): KeyRingResult {
  const parsed = KeyRingFile.safeParse(value);
  if (!parsed.success) {
    const reason = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    return { ok: false, error: new PayloadKeyRingError(source, reason) };
  }
  const keys = new Map(Object.entries(parsed.data.keys).map(([id, material]) => [id, Buffer.from(material, 'base64')]));
  return { ok: true, ring: { current: parsed.data.current, keys } };
}

/**
 * Reads and checks a key-ring file (`{ "current": "k2", "keys": { "k1": "...", "k2": "..." } }`):
 * `{ ok: true, ring }`, or `{ ok: false, error }` naming the file and what is wrong with it. The
 * format of both the payload ring and the result keys (`agentPlugin({ resultKeys })`).
 */
export function readKeyRing(path: string): KeyRingResult {
  let read: TrustedFileRead;
  try {
    read = readTrustedFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, error: new PayloadKeyRingError(path, code === 'ENOENT' ? 'no such file' : `cannot read it (${code ?? String(err)})`) };
  }
  // Whoever reads a payload ring reads every run, and whoever reads the result ring can seal a
  // tool result as a worker's. Its group may read it (a Kubernetes secret mounted for a pod's
  // fsGroup is 0440), not write it.
  const exposed = exposedMode(read.mode, 0o027);
  if (exposed) {
    const reason = `others can read or change it (mode ${exposed}); a key ring is for its owner (and may be read by its group): chmod 600 ${path}`;
    return { ok: false, error: new PayloadKeyRingError(path, reason) };
  }
  // Whoever can put other keys in it decides which payloads open and which seals count.
  const owner = ownedByAnother(read);
  if (owner) return { ok: false, error: new PayloadKeyRingError(path, `${owner}; a key ring is changed by the worker's user (or root) alone`) };
  let json: unknown;
  try {
    json = JSON.parse(read.text);
  } catch {
    return { ok: false, error: new PayloadKeyRingError(path, 'not JSON') };
  }
  return parseKeyRing(json, path);
}
