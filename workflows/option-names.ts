// Options are checked by name where they are given. A TypeScript caller is told by the compiler,
// but a JavaScript caller, an options object built at run time, or code written against an older
// release is not: an option a release removed (spend caps given to createAgentWorker instead of
// agentSpendPlugin) would be ignored without a word, and a security setting that is ignored is
// worse than one that is refused. So the worker's and the client's constructors refuse any name
// they do not take, naming what replaced it. No imports but the error root: client and worker
// both use it.
import { AgentError } from './agent-error.js';

/** An option the constructor does not take: removed by a release (`replacement` says what took its place), or never one. */
export class OptionRefusedError extends AgentError {
  static override readonly errorName: string = 'OptionRefusedError';
  constructor(
    /** The constructor it was given to (`createAgentWorker`, `agentPlugin`, `AgentClient`...). */
    readonly where: string,
    readonly option: string,
    /** What to use instead, when a release removed it. */
    readonly replacement: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** The names a constructor takes, as a record so the compiler holds it to the options type: every key, and no other. */
export type OptionNames<T> = Record<keyof T, true>;

/**
 * Throws OptionRefusedError for the first option in `given` that is not in `known`: for one in
 * `removed`, naming its replacement; for any other, the nearest known name, if one is close.
 * An option set to `undefined` counts as not given.
 */
export function refuseUnknownOptions(
  where: string,
  given: object,
  known: Readonly<Record<string, true>>,
  removed: Readonly<Record<string, string>> = {},
): void {
  const names = Object.keys(known);
  for (const [option, value] of Object.entries(given)) {
    if (value === undefined || names.includes(option)) continue;
    const replacement = Object.hasOwn(removed, option) ? removed[option] : undefined;
    if (replacement !== undefined) {
      throw new OptionRefusedError(where, option, replacement, `${where}: the option '${option}' was removed; use ${replacement}`);
    }
    const near = names.find((n) => n.toLowerCase() === option.toLowerCase() || editDistance(n, option) <= 2);
    const hint = near ? `did you mean '${near}'? ` : '';
    throw new OptionRefusedError(where, option, undefined, `${where}: no option named '${option}'; ${hint}it takes ${names.join(', ')}`);
  }
}

/** Levenshtein distance, for a "did you mean" over a dozen short names. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min((row[j] as number) + 1, (next[j - 1] as number) + 1, (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length] as number;
}
