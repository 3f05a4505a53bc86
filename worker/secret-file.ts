// Files that hold secrets (an approver's signing key, a payload or result key ring), read the way
// ssh reads a private key: the mode is taken from the file that was opened and read, so a file
// swapped between a check and a read is not the one checked, and bits that let others in are
// named by the caller, which refuses the file. Each caller says which bits it forbids and in its
// own words why (client/sign.ts, worker/payload-keys.ts).
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';

/** The file's text and permission bits, through one open file. Throws what the file system throws. */
export function readSecretFile(path: string): { text: string; mode: number } {
  const fd = openSync(path, 'r');
  try {
    return { mode: fstatSync(fd).mode & 0o777, text: readFileSync(fd, 'utf8') };
  } finally {
    closeSync(fd);
  }
}

/** The mode as `ls` and `chmod` write it (`644`) when it has any of the `forbidden` bits; Windows has no such bits. */
export function exposedMode(mode: number, forbidden: number): string | undefined {
  if (process.platform === 'win32' || (mode & forbidden) === 0) return undefined;
  return mode.toString(8).padStart(3, '0');
}
