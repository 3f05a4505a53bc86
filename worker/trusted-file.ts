// Files a worker trusts: a key ring (payload or result keys), the approver directory, an
// approver's signing key. Each is read the way ssh reads a private key: the mode and owner are
// taken from the file that was opened and read, so a file swapped between a check and a read is
// not the one checked. Whoever can change such a file decides what the worker believes (who may
// approve, which seals count), so besides the bits each caller forbids, a worker refuses one that
// another user owns (ownedByAnother). Each caller says which bits it forbids and in its own words
// why (client/sign.ts, worker/payload-keys.ts, worker/approvers.ts).
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';

export interface TrustedFileRead {
  text: string;
  /** The permission bits (`0o640`). */
  mode: number;
  /** The owner's user id. */
  uid: number;
}

/** The file's text, permission bits and owner, through one open file. Throws what the file system throws. */
export function readTrustedFile(path: string): TrustedFileRead {
  const fd = openSync(path, 'r');
  try {
    const stat = fstatSync(fd);
    return { mode: stat.mode & 0o777, uid: stat.uid, text: readFileSync(fd, 'utf8') };
  } finally {
    closeSync(fd);
  }
}

/** The mode as `ls` and `chmod` write it (`644`) when it has any of the `forbidden` bits; Windows has no such bits. */
export function exposedMode(mode: number, forbidden: number): string | undefined {
  if (process.platform === 'win32' || (mode & forbidden) === 0) return undefined;
  return mode.toString(8).padStart(3, '0');
}

/**
 * The file's owner in a sentence when it is neither the user reading it (`me`, the process's by
 * default) nor root: that owner can change it whatever its mode says. Root's files are trusted by
 * every user (/etc, a mounted Kubernetes secret). Windows has no such owners, and says nothing.
 *
 * Directories on the file's path are not judged: a Kubernetes secret or config map is mounted
 * read-only in a directory whose mode says anyone may write it (0777, no sticky bit), and a
 * checkout one user made is often run by root, so refusing either would stop workers that are
 * safe. Keep such a file where only its owner can rename entries.
 */
export function ownedByAnother(read: Pick<TrustedFileRead, 'uid'>, me = process.getuid?.()): string | undefined {
  if (process.platform === 'win32' || me === undefined) return undefined;
  if (read.uid === me || read.uid === 0) return undefined;
  return `it belongs to user ${read.uid}, who is neither this process's user (${me}) nor root, and can change it`;
}
