// The approver directory a worker trusts: a JSON file named by AGENT_APPROVERS_FILE, written
// by whoever runs the worker (`agent keys generate` prints the entry to add). Without it the
// worker knows no approver, and every effect that needs approval waits until it expires.
import { readFileSync } from 'node:fs';
import { ApproverDirectory } from '../workflows/trust/directory.js';

/** Reads and checks the approver directory (ids, public keys, roles) a worker trusts; without a path, nobody can approve and it says so on stderr. */
export function loadApproverDirectory(path: string | undefined): ApproverDirectory {
  if (!path) {
    process.stderr.write('worker: AGENT_APPROVERS_FILE is not set; no one can approve effects on this worker\n');
    return { approvers: [] };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read the approver directory ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = ApproverDirectory.safeParse(raw);
  if (!parsed.success)
    throw new Error(`the approver directory ${path} is malformed: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}
