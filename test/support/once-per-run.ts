// Something costly that many test files need and one can make for all: the packed engine, a
// workflow bundle. The first file to ask makes it, once per test run, in a folder of the run's
// scratch directory (global setup removes it); the others, in any test process, wait for its
// record. mkdir is atomic, so exactly one process makes each; its record says what it made, or
// why it could not, so a waiting file fails with the maker's words rather than after the patience.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitUntil as poll } from '../../client/wait.js';
import { PATIENCE_MS } from './wait.js';

type Record<T> = { made: T } | { error: string };

/** This process's own asks, so a second ask here shares the first's promise instead of polling. */
const asked = new Map<string, Promise<unknown>>();

/**
 * What `make` returned the first time any file of this run asked for `name` in `dir`. A waiting
 * file gives up after `patienceMs` (default the tests' patience; longer for a build that takes
 * minutes on a loaded host).
 */
export function oncePerRun<T>(dir: string, name: string, make: () => Promise<T>, patienceMs = PATIENCE_MS): Promise<T> {
  const record = join(dir, `${name}.json`);
  let found = asked.get(record) as Promise<T> | undefined;
  if (!found) {
    found = makeOrWait(dir, name, record, make, patienceMs);
    asked.set(record, found);
  }
  return found;
}

async function makeOrWait<T>(dir: string, name: string, record: string, make: () => Promise<T>, patienceMs: number): Promise<T> {
  let mine = false;
  try {
    mkdirSync(join(dir, `${name}.making`), { recursive: false });
    mine = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  if (mine) {
    try {
      const made = await make();
      writeRecord(record, { made });
      return made;
    } catch (err) {
      writeRecord(record, { error: err instanceof Error ? err.message : String(err) });
      throw err;
    }
  }
  const found = await poll(
    async () => (existsSync(record) ? (JSON.parse(readFileSync(record, 'utf8')) as Record<T>) : undefined),
    `${name}, which another test file is making`,
    {
      timeoutMs: patienceMs,
      everyMs: 250,
    },
  );
  if ('error' in found) throw new Error(`${name} failed in another test file: ${found.error}`);
  return found.made;
}

/** Written whole, then renamed: a waiting file never reads half a record. */
function writeRecord<T>(path: string, record: Record<T>): void {
  writeFileSync(`${path}.partial`, JSON.stringify(record));
  renameSync(`${path}.partial`, path);
}
