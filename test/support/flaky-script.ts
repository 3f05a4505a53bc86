// A program whose first starts fail, for tests of what a start-up tries again: a shell script that
// counts its starts in a file beside it, runs `fail` (what a binary says when its port was taken,
// say) and exits 1 for the first `failures` of them, and `then` (the real thing, by exec) after.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FlakyScriptOptions {
  failures: number;
  /** Shell lines run first on every start (reading the arguments, say). */
  prelude?: string[];
  /** A shell condition for a start that counts (an invocation that is no start, like --version, does not). */
  counts?: string;
  /** Shell lines a failing start runs before it exits 1. */
  fail: string;
  /** Shell lines a start past the failures runs. */
  then: string;
}

export function flakyScript(dir: string, name: string, options: FlakyScriptOptions): { path: string; starts: () => number } {
  const count = join(dir, `${name}.starts`);
  writeFileSync(count, '');
  const path = join(dir, name);
  const script = [
    '#!/bin/sh',
    ...(options.prelude ?? []),
    `if ${options.counts ?? 'true'}; then`,
    `  echo start >> '${count}'`,
    `  if [ "$(wc -l < '${count}')" -le ${options.failures} ]; then ${options.fail}; exit 1; fi`,
    'fi',
    options.then,
    '',
  ];
  writeFileSync(path, script.join('\n'));
  chmodSync(path, 0o755);
  return { path, starts: () => readFileSync(count, 'utf8').split('\n').filter(Boolean).length };
}
