// Builds the Temporal server and its SQL schema tool from the Go module at the pinned version,
// once: the binaries land in .temporal/cluster/bin/ under versioned names, and every later start
// reuses them. A cold build (module download included) takes minutes, so it is never implicit
// in `npm test`; only `npm run cluster -- build|start` and `npm run test:cluster` do it.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { binDir, clusterRoot, serverBinary, sqlToolBinary, TEMPORAL_SERVER_VERSION } from './paths.js';
import type { Log } from '../temporal-dev/log.js';

export class ClusterBuildError extends Error {
  constructor(
    message: string,
    readonly logFile: string,
  ) {
    super(`${message} (full output in ${logFile})`);
    this.name = 'ClusterBuildError';
  }
}

const MODULE = 'go.temporal.io/server';
/** The Go packages and the names their binaries get here. */
const TARGETS = [
  { pkg: `${MODULE}/cmd/server`, built: 'server', as: serverBinary },
  { pkg: `${MODULE}/cmd/tools/sql`, built: 'sql', as: sqlToolBinary },
] as const;

export function binariesBuilt(): boolean {
  return TARGETS.every((t) => existsSync(t.as));
}

/** Builds what is missing; returns how long it took (0 when both binaries were already there). */
export async function ensureBinaries(log: Log): Promise<{ built: boolean; seconds: number }> {
  if (binariesBuilt()) {
    log(`Temporal server ${TEMPORAL_SERVER_VERSION} already built in ${binDir}`);
    return { built: false, seconds: 0 };
  }
  mkdirSync(binDir, { recursive: true });
  const logFile = join(clusterRoot, 'build.log');
  // Built into a folder of its own and moved into place at the end, so a build cut short never
  // leaves a binary that looks finished.
  const stage = join(binDir, `.stage-${process.pid}`);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage);
  const args = ['install', '-p', '2', '-trimpath', '-ldflags=-s -w', ...TARGETS.map((t) => `${t.pkg}@${TEMPORAL_SERVER_VERSION}`)];
  log(
    `building Temporal server ${TEMPORAL_SERVER_VERSION} from the Go module (go ${args.join(' ')}); a cold build takes several minutes, output in ${logFile}`,
  );
  const started = Date.now();
  const out = createWriteStream(logFile);
  const code = await new Promise<number | null>((resolve, reject) => {
    // Two compile jobs and two threads at most: the machine is shared, and a test run beside the
    // build should still get a core.
    const child = spawn('go', args, {
      cwd: clusterRoot,
      env: { ...process.env, GOBIN: stage, GOMAXPROCS: '2', GOFLAGS: `${process.env.GOFLAGS ?? ''} -buildvcs=false`.trim() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    child.once('error', (err) => reject(new ClusterBuildError(`could not run go (${err.message}); install Go >= 1.26.8 or put it on PATH`, logFile)));
    child.once('close', resolve);
  });
  out.end();
  if (code !== 0) {
    rmSync(stage, { recursive: true, force: true });
    throw new ClusterBuildError(`go install exited ${code}`, logFile);
  }
  for (const t of TARGETS) renameSync(join(stage, t.built), t.as);
  rmSync(stage, { recursive: true, force: true });
  const seconds = Math.round((Date.now() - started) / 1000);
  log(`built ${serverBinary} and ${sqlToolBinary} in ${seconds} s`);
  return { built: true, seconds };
}
