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

/**
 * One key, one person: a public key listed under two ids would let its holder count twice
 * toward a quorum, so such a directory is refused where it enters (the worker's file, the
 * activity's answer inside the run), naming the ids.
 */
export const ApproverDirectory = workerScoped('directory.ApproverDirectory', () =>
  z.strictObject({ approvers: z.array(Approver).max(1_000) }).superRefine((directory, ctx) => {
    for (const [publicKey, ids] of idsByKey(directory.approvers)) {
      if (ids.size > 1)
        ctx.addIssue({
          code: 'custom',
          path: ['approvers'],
          message: `one public key (${publicKey.slice(0, 16)}...) is listed under ${[...ids].join(' and ')}`,
        });
    }
  }),
);
export type ApproverDirectory = z.infer<typeof ApproverDirectory>;

/**
 * The approvers who may decide a request needing one of `roles`, within the run's scope.
 * An id listed twice in the directory is dropped entirely: which key would count is unclear;
 * so is a key listed under two ids.
 */
export function eligibleApprovers(directory: ApproverDirectory, roles: string[], scope: string[] | undefined): Approver[] {
  const counts = new Map<string, number>();
  for (const a of directory.approvers) counts.set(a.id, (counts.get(a.id) ?? 0) + 1);
  // The schema already refuses a key under two ids; a directory that got here some other way
  // loses both entries rather than letting one person count twice.
  const keys = idsByKey(directory.approvers);
  return directory.approvers.filter(
    (a) =>
      counts.get(a.id) === 1 && keys.get(a.publicKey)?.size === 1 && a.roles.some((r) => roles.includes(r)) && (scope === undefined || scope.includes(a.id)),
  );
}

function idsByKey(approvers: readonly { id: string; publicKey: string }[]): Map<string, Set<string>> {
  const byKey = new Map<string, Set<string>>();
  for (const a of approvers) byKey.set(a.publicKey, (byKey.get(a.publicKey) ?? new Set<string>()).add(a.id));
  return byKey;
}
