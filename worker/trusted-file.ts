// Files a worker trusts: a key ring (payload or result keys), the approver directory, an
// approver's signing key. Each is read the way ssh reads a private key: the mode and owner are
// taken from the file that was opened and read, so a file swapped between a check and a read is
// not the one checked. Whoever can change such a file decides what the worker believes (who may
// approve, which seals count), so besides the bits each caller forbids, the file is refused when
// another user owns it or when anyone may replace it in its directory. Each caller says which
// bits it forbids and in its own words why (client/sign.ts, worker/payload-keys.ts,
// worker/approvers.ts).
import { closeSync, fstatSync, openSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

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
 * Who other than the reader could put other words in the file, in a sentence, or undefined: an
 * owner who is neither the user reading it (`me`, the process's by default) nor root, or a
 * directory on its real path that anyone may add or rename entries in (writable by others,
 * without the sticky bit that /tmp has). Directories owned by another user are not refused:
 * a checkout made by one user and run by root is common, and refusing it would stop workers
 * that are safe. Windows has no such owners or bits, and says nothing.
 */
export function othersCanReplace(path: string, read: Pick<TrustedFileRead, 'uid'>, me = process.getuid?.()): string | undefined {
  if (process.platform === 'win32' || me === undefined) return undefined;
  if (read.uid !== me && read.uid !== 0) return `it belongs to user ${read.uid}, who is neither this process's user (${me}) nor root, and can change it`;
  let dir = dirname(realpathSync(path));
  for (;;) {
    const { mode } = statSync(dir);
    if ((mode & 0o002) !== 0 && (mode & 0o1000) === 0)
      return `anyone can replace it: its directory ${dir} is writable by others without the sticky bit (mode ${(mode & 0o7777).toString(8)})`;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
