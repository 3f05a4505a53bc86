// The approver directory a worker trusts: a JSON file named by AGENT_APPROVERS_FILE, written
// by whoever runs the worker (`agent keys generate` prints the entry to add). Without it the
// worker knows no approver, and every effect that needs approval waits until it expires.
// Whoever can change the file can approve: one others could change is refused (trusted-file.ts).
import { ApproverDirectory } from '../workflows/trust/directory.js';
import { exposedMode, ownedByAnother, readTrustedFile, type TrustedFileRead } from './trusted-file.js';

/** Reads and checks the approver directory (ids, public keys, roles) a worker trusts; without a path, nobody can approve and it says so on stderr. */
export function loadApproverDirectory(path: string | undefined): ApproverDirectory {
  if (!path) {
    process.stderr.write('worker: AGENT_APPROVERS_FILE is not set; no one can approve effects on this worker\n');
    return { approvers: [] };
  }
  let read: TrustedFileRead;
  try {
    read = readTrustedFile(path);
  } catch (err) {
    throw new Error(`cannot read the approver directory ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  // Whoever can write a key into the directory can approve. Anyone may read it (it holds public
  // keys only), and its group may write it: a umask of 002 makes files so, and the group is the
  // user's own where it is the default.
  const exposed = exposedMode(read.mode, 0o002);
  if (exposed) throw new Error(`the approver directory ${path} can be changed by anyone (mode ${exposed}), who could then approve: chmod 644 ${path}`);
  const owner = ownedByAnother(read);
  if (owner) throw new Error(`the approver directory ${path} could be changed by someone other than the worker's user, who could then approve: ${owner}`);
  let raw: unknown;
  try {
    raw = JSON.parse(read.text);
  } catch (err) {
    throw new Error(`cannot read the approver directory ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = ApproverDirectory.safeParse(raw);
  if (!parsed.success)
    throw new Error(`the approver directory ${path} is malformed: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}
