// The line a long-running child process prints when it is ready (a worker's WORKER_READY, the
// alert receiver's `listening` line): the tests that start such commands wait for it here, and
// hear why when the process exits first (the tail of its stderr).
import type { ChildProcess } from 'node:child_process';

/** The first line of `child`'s stdout that `match` accepts; rejects, naming `what`, if it exits before. */
export function readyLine(child: ChildProcess, what: string, match: (line: string) => boolean): Promise<string> {
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-4_000)));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const line = out.split('\n').find(match);
      if (line !== undefined) resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`${what} exited ${code}: ${err}`)));
  });
}
