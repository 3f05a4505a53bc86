// Where the multi-service cluster keeps what it builds and what it runs, all under the ignored
// .temporal/cluster/ folder: binaries (built once, reused by every later start) and one data
// folder per running cluster (the PostgreSQL data, the server's config, each service's log).
import { join } from 'node:path';
import { projectRoot } from '../temporal-dev/paths.js';

/**
 * The server release the cluster runs: the one inside the pinned Temporal CLI's dev server
 * (temporal-dev/cli.ts, CLI 1.9.1 = Server 1.32.0), so a test means the same on both. 1.32.0
 * also needs no newer Go than the machine's (its go.mod says go 1.26.8; 1.32.2 says 1.26.10).
 */
export const TEMPORAL_SERVER_VERSION = 'v1.32.0';

export const clusterRoot = join(projectRoot, '.temporal', 'cluster');
export const binDir = join(clusterRoot, 'bin');
export const serverBinary = join(binDir, `temporal-server-${TEMPORAL_SERVER_VERSION}`);
export const sqlToolBinary = join(binDir, `temporal-sql-tool-${TEMPORAL_SERVER_VERSION}`);

/** `npm run cluster -- start` keeps its cluster here, so `status` and `stop` find it again. */
export const defaultDataDir = join(clusterRoot, 'data');
/** Clusters started for one test process, each in its own folder, removed when it stops. */
export const scratchParent = join(clusterRoot, 'scratch');
