// Files a worker trusts (worker/trusted-file.ts): whoever can put other words in the approver
// directory can approve, and whoever can put other keys in a key ring decides which seals count.
// So such a file is refused when anyone may write it or when it belongs to another user (not
// root); the real files are made here and read through the same calls a worker makes.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, directoryEntry } from '../../client/sign.js';
import { loadApproverDirectory } from '../../worker/approvers.js';
import { workerOptionsFromEnv, WorkerEnvError } from '../../worker/env-options.js';
import { readKeyRing } from '../../worker/payload-keys.js';
import { ownedByAnother, readTrustedFile } from '../../worker/trusted-file.js';

const k1 = Buffer.alloc(32, 7).toString('base64');
const me = process.getuid?.() ?? 0;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'trusted-file-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A directory of `mode` (chmod, so the umask does not change it) holding `name` with `text`. */
function fileIn(sub: string, mode: number, name: string, text: string, fileMode = 0o600): string {
  const where = join(dir, sub);
  mkdirSync(where, { recursive: true });
  chmodSync(where, mode);
  const path = join(where, name);
  writeFileSync(path, text);
  chmodSync(path, fileMode);
  return path;
}

const approver = generateKey('rita@refunds');
const directoryText = JSON.stringify({ approvers: [directoryEntry(approver, ['refunds-approver'])] });

describe('the approver directory', () => {
  it('is read when only its owner can write it, or its group (a umask of 002)', () => {
    for (const mode of [0o644, 0o664, 0o600]) {
      const path = fileIn('plain', 0o755, `approvers-${mode.toString(8)}.json`, directoryText, mode);
      expect(
        loadApproverDirectory(path).approvers.map((a) => a.id),
        mode.toString(8),
      ).toEqual(['rita@refunds']);
    }
  });

  it('is refused when anyone may write it: a stranger who added their key could approve; the worker does not start', async () => {
    const path = fileIn('plain', 0o755, 'approvers-open.json', directoryText, 0o646);
    expect(() => loadApproverDirectory(path)).toThrow(/can be changed by anyone \(mode 646\).*chmod 644/);
    const refused = await workerOptionsFromEnv({ AGENT_APPROVERS_FILE: path }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(WorkerEnvError.isInstance(refused)).toBe(true);
    expect(String((refused as Error).message)).toMatch(/^AGENT_APPROVERS_FILE: .*can be changed by anyone/);
  });

  it('is refused when it belongs to another user who is not root, named in the refusal', () => {
    const path = fileIn('plain', 0o755, 'approvers-owned.json', directoryText, 0o644);
    const read = readTrustedFile(path);
    expect(read.uid).toBe(me); // the owner, from the open file
    expect(ownedByAnother(read)).toBeUndefined();
    // Owners as a worker of user 4343 would find them (this test may run as root, who owns the file).
    expect(ownedByAnother({ uid: 4242 }, 4343)).toBe("it belongs to user 4242, who is neither this process's user (4343) nor root, and can change it");
    expect(ownedByAnother({ uid: 4343 }, 4343)).toBeUndefined();
    // Files root owns are trusted by every user (a mounted Kubernetes secret, /etc).
    expect(ownedByAnother({ uid: 0 }, 4343)).toBeUndefined();
  });

  it('is read in a directory whose mode lets anyone write, as a Kubernetes config map is mounted (read-only, in a 0777 directory)', () => {
    const path = fileIn('volume', 0o777, 'approvers.json', directoryText, 0o644);
    expect(loadApproverDirectory(path).approvers.map((a) => a.id)).toEqual(['rita@refunds']);
  });
});

describe('a key ring', () => {
  it('is read in a directory whose mode lets anyone write, as a Kubernetes secret volume is mounted (read-only, in a 0777 directory)', () => {
    const path = fileIn('volume', 0o777, 'keys.json', JSON.stringify({ current: 'k1', keys: { k1 } }), 0o400);
    expect(readKeyRing(path).ok).toBe(true);
  });
});
