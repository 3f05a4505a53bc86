// The CLI's own error classes, kept free of heavy imports so usage errors answer at once.
// Either way the operator sees exactly one line `error: <message>` on stderr. They are the
// command line's, not the client's: AgentClient's errors (agent-errors.ts) stand apart.
import { AgentError } from '../workflows/agent-error.js';

/** The root of the command line's own errors: the operator asked for something it cannot do (exit code 1). */
export class CliError extends AgentError {
  static override readonly errorName: string = 'CliError';
}

/** Wrong command, flags or arguments: exit code 2. */
export class UsageError extends CliError {
  static override readonly errorName: string = 'UsageError';
}

export function oneLine(text: string): string {
  const flat = text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return flat.length > 2_000 ? `${flat.slice(0, 2_000)}…` : flat;
}
