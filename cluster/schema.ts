// The two databases a Temporal server needs (its own and visibility), created and brought to
// the pinned release's schema by that release's temporal-sql-tool, from the schema files it
// embeds: the same tool and steps an operator runs on a production PostgreSQL.
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DB_USER, HOST } from './config.js';
import { sqlToolBinary } from './paths.js';
import type { Log } from '../temporal-dev/log.js';

const run = promisify(execFile);

export class SchemaSetupError extends Error {
  constructor(step: string, cause: unknown) {
    const detail = cause && typeof cause === 'object' && 'stderr' in cause ? String(cause.stderr).trim().split('\n').slice(-3).join('\n') : String(cause);
    super(`temporal-sql-tool ${step} failed:\n${detail}`, { cause });
    this.name = 'SchemaSetupError';
  }
}

const DATABASES = [
  { name: 'temporal', schema: 'postgresql/v12/temporal' },
  { name: 'temporal_visibility', schema: 'postgresql/v12/visibility' },
] as const;

/** Creates both databases at the newest schema once; a marker file in `dir` says it was done. */
export async function setUpSchemas(dir: string, postgresPort: number, log: Log): Promise<void> {
  const marker = join(dir, 'schema.done');
  if (existsSync(marker)) return;
  for (const db of DATABASES) {
    const base = ['--plugin', 'postgres12', '--endpoint', HOST, '--port', String(postgresPort), '--user', DB_USER, '--database', db.name];
    const steps: Array<[string, string[]]> = [
      ['create-database', ['create-database', '--defaultdb', 'postgres']],
      ['setup-schema', ['setup-schema', '--version', '0.0']],
      ['update-schema', ['update-schema', '--schema-name', db.schema]],
    ];
    for (const [step, args] of steps) {
      try {
        await run(sqlToolBinary, [...base, ...args]);
      } catch (err) {
        throw new SchemaSetupError(`${step} on ${db.name}`, err);
      }
    }
    log(`database ${db.name} at the ${db.schema} schema`);
  }
  writeFileSync(marker, `${new Date().toISOString()}\n`);
}
