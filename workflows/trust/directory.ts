// Who may approve: the approver directory (id, public key, roles). It is worker-side
// configuration, loaded by an activity when a request is raised; a run's input may narrow it
// to some of its ids, never add an id, a key or a role.
import { z } from 'zod';
import { workerScoped } from '../worker-scoped.js';
import { PublicKeyHex } from './statement.js';

export const Approver = workerScoped('directory.Approver', () =>
  z.strictObject({
    id: z.string().min(1).max(200),
    publicKey: PublicKeyHex,
    roles: z.array(z.string().min(1).max(100)).max(50),
  }),
);
export type Approver = z.infer<typeof Approver>;

export const ApproverDirectory = workerScoped('directory.ApproverDirectory', () => z.strictObject({ approvers: z.array(Approver).max(1_000) }));
export type ApproverDirectory = z.infer<typeof ApproverDirectory>;

/**
 * The approvers who may decide a request needing one of `roles`, within the run's scope.
 * An id listed twice in the directory is dropped entirely: which key would count is unclear.
 */
export function eligibleApprovers(directory: ApproverDirectory, roles: string[], scope: string[] | undefined): Approver[] {
  const counts = new Map<string, number>();
  for (const a of directory.approvers) counts.set(a.id, (counts.get(a.id) ?? 0) + 1);
  return directory.approvers.filter(
    (a) => counts.get(a.id) === 1 && a.roles.some((r) => roles.includes(r)) && (scope === undefined || scope.includes(a.id)),
  );
}
