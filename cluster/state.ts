// What a running cluster is, on disk: its pids, ports and address, in the cluster's folder. The
// process that started the cluster may be gone (`npm run cluster -- start` returns at once), so
// `status` and `stop` work from this file alone, and read it through a schema.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ClusterPorts, ServiceName } from './config.js';

export const ProcessEntry = z.object({ pid: z.number().int().positive(), program: z.string() });
export type ProcessEntry = z.infer<typeof ProcessEntry>;

export const ClusterState = z.object({
  serverVersion: z.string(),
  dir: z.string(),
  address: z.string(),
  namespace: z.string(),
  configFile: z.string(),
  ports: ClusterPorts,
  postgres: ProcessEntry,
  services: z.record(ServiceName, ProcessEntry),
  startedAt: z.string(),
  /** The process a scratch cluster lives and dies with; absent for `npm run cluster -- start`. */
  owner: ProcessEntry.optional(),
});
export type ClusterState = z.infer<typeof ClusterState>;

export class ClusterStateError extends Error {
  constructor(file: string, detail: string) {
    super(`${file}: ${detail}`);
    this.name = 'ClusterStateError';
  }
}

export const stateFile = (dir: string) => join(dir, 'state.json');

export function readState(dir: string): ClusterState | undefined {
  const file = stateFile(dir);
  if (!existsSync(file)) return undefined;
  const parsed = ClusterState.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success)
    throw new ClusterStateError(file, `not a cluster state file (${parsed.error.issues[0]?.message ?? 'invalid'}); remove it if no cluster runs`);
  return parsed.data;
}

/** Written whole and renamed into place: a reader never sees half a file. */
export function writeState(state: ClusterState): void {
  const file = stateFile(state.dir);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}

export function removeState(dir: string): void {
  rmSync(stateFile(dir), { force: true });
}
