// The test approvers: fixed keys (derived from their names, so every process of a test run
// agrees on them) and the directory a test worker trusts. Mallory has a key the directory
// does not list; bob is listed without the payments role.
import { createHash } from 'node:crypto';
import { directoryEntry, type KeyFile } from '../../client/sign.js';
import type { ApproverDirectory } from '../../workflows/trust/directory.js';
import { publicKeyOf } from '../../workflows/trust/statement.js';

function testKey(id: string): KeyFile {
  const secretKey = createHash('sha256').update(`test key of ${id}`).digest('hex');
  return { id, secretKey, publicKey: publicKeyOf(secretKey) };
}

export const keys = {
  alice: testKey('alice@ops'),
  bob: testKey('bob@support'),
  carol: testKey('carol@sre'),
  sam: testKey('sam@bench'),
  tess: testKey('tess@bench'),
  mallory: testKey('mallory@evil'),
};

export const TEST_DIRECTORY: ApproverDirectory = {
  approvers: [
    directoryEntry(keys.alice, ['payments-approver']),
    directoryEntry(keys.bob, ['support']),
    directoryEntry(keys.carol, ['sre-lead']),
    directoryEntry(keys.sam, ['synthetic-approver']),
    directoryEntry(keys.tess, ['synthetic-approver']),
  ],
};
