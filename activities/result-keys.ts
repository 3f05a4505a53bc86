// Where a worker's result keys come from. Every worker that runs a team's agent activities or its
// agent workflows must hold the same ring: one worker seals what its activities return, another
// (the one running the workflow) checks the seal (activities/result-seal.ts). The ring has the
// payload key ring's format and rotation (worker/payload-keys.ts): `current` seals, every key
// still listed opens.
//
// Where it comes from, first found wins: the `resultKeys` option, the file AGENT_RESULT_KEYS
// names, or a ring this machine keeps for itself at ~/.bounded-react-temporal/result-keys.json,
// made on first use. The last is what lets the demo, the tests and a laptop's workers agree
// without a word of configuration; workers on several machines need the variable (a worker
// holding another ring reads every result as a claim, and its runs escalate instead of acting).
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { KEY_BYTES, readKeyRing, type KeyRing } from '../worker/payload-keys.js';

/** The environment variable that names the result key-ring file. */
export const RESULT_KEYS_ENV = 'AGENT_RESULT_KEYS';

/** The ring a machine keeps for its own workers when no other is given. */
export function machineResultKeysPath(): string {
  return join(homedir(), '.bounded-react-temporal', 'result-keys.json');
}

/**
 * The ring this worker seals and checks results with. A file that is named but unreadable or
 * malformed throws (PayloadKeyRingError, naming the file): a worker must not start with a key no
 * other worker holds.
 */
export function resolveResultKeys(given?: KeyRing, env: NodeJS.ProcessEnv = process.env): KeyRing {
  if (given) return given;
  const named = env[RESULT_KEYS_ENV];
  const path = named && named.trim() ? named : machineResultKeysPath();
  if (!named && !existsSync(path)) makeOnce(path);
  const read = readKeyRing(path);
  if (!read.ok) throw read.error;
  return read.ring;
}

/**
 * Writes a fresh ring unless one is there. Written whole under another name and linked into
 * place, so two workers starting at once keep the first ring, and neither reads half a file.
 */
function makeOnce(path: string): void {
  const ring = { current: 'k1', keys: { k1: randomBytes(KEY_BYTES).toString('base64') } };
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const draft = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, `${JSON.stringify(ring, null, 2)}\n`, { mode: 0o600 });
  try {
    linkSync(draft, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(draft, { force: true });
  }
}
