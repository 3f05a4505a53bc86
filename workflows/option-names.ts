// Options are checked by name where they are given. A TypeScript caller is told by the compiler,
// but a JavaScript caller, an options object built at run time, or code written against an older
// release is not: an option a release removed (spend caps given to createAgentWorker instead of
// agentSpendPlugin) would be ignored without a word, and a security setting that is ignored is
// worse than one that is refused. So the worker's and the client's constructors refuse any name
// they do not take, naming what replaced it. No imports: client and worker both use it.

/** Why an option is refused: `replacement` is what took its place, when a release removed it. */
export interface RefusedOption {
  /** The constructor it was given to (`createAgentWorker`, `agentPlugin`, `AgentClient`...). */
  where: string;
  option: string;
  replacement: string | undefined;
  message: string;
}

/** The names a constructor takes, as a record so the compiler holds it to the options type: every key, and no other. */
export type OptionNames<T> = Record<keyof T, true>;

/**
 * The first option in `given` that is not in `known`, and why: for one in `removed`, naming its
 * replacement; for any other, the nearest known name, if one is close. An option set to
 * `undefined` counts as not given. Each side throws its own error with it (the worker's
 * WorkerOptionError, the client's ClientOptionError).
 */
export function refusedOption(
  where: string,
  given: object,
  known: Readonly<Record<string, true>>,
  removed: Readonly<Record<string, string>> = {},
): RefusedOption | undefined {
  const names = Object.keys(known);
  for (const [option, value] of Object.entries(given)) {
    if (value === undefined || names.includes(option)) continue;
    const replacement = Object.hasOwn(removed, option) ? removed[option] : undefined;
    if (replacement !== undefined) return { where, option, replacement, message: `${where}: the option '${option}' was removed; use ${replacement}` };
    const near = names.find((n) => n.toLowerCase() === option.toLowerCase() || editDistance(n, option) <= 2);
    const hint = near ? `did you mean '${near}'? ` : '';
    return { where, option, replacement: undefined, message: `${where}: no option named '${option}'; ${hint}it takes ${names.join(', ')}` };
  }
  return undefined;
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
