// The CLI's own error classes, kept free of heavy imports so usage errors answer at once.
// Either way the operator sees exactly one line `error: <message>` on stderr.

/** Wrong command, flags or arguments: exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The operator asked for something the run refuses or cannot do: exit code 1. */
export class CliError extends Error {
  override name = 'CliError';
}

export function oneLine(text: string): string {
  const flat = text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return flat.length > 2_000 ? `${flat.slice(0, 2_000)}…` : flat;
}
