// How a tool implementation tells the engine what went wrong. Only two things matter to the
// engine: the system definitely refused (nothing happened; the model hears why), or it was
// unavailable and asking again may help. Anything else thrown is treated as unavailable, and
// for an effect "unavailable after the request may have arrived" means unknown: read back.
// Recognised by marker, not instanceof, so a domain package with its own copy of the engine is
// heard the same.
import { AgentError } from '../workflows/agent-error.js';

/** The system of record said no: the call did not happen and repeating it unchanged will not help. */
export class ToolRefused extends AgentError {
  static override readonly errorName: string = 'ToolRefused';
  constructor(
    message: string,
    /** A short machine-readable reason, e.g. `transfer_not_found`. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** The system of record could not be reached or answered 5xx/429: the call may be tried again. */
export class ToolUnavailable extends AgentError {
  static override readonly errorName: string = 'ToolUnavailable';
  constructor(
    message: string,
    /** True when the call ran out of time (it may still have happened). */
    readonly timedOut = false,
  ) {
    super(message);
  }
}

export type ToolFailure = { class: 'semantic' | 'transient' | 'timeout'; message: string };

/** The one place that maps an error to how the engine treats it. */
export function classifyToolError(err: unknown, domainClassifier?: (err: unknown) => ToolRefused | ToolUnavailable | undefined): ToolFailure {
  let known: unknown = err;
  if (!ToolRefused.isInstance(err) && !ToolUnavailable.isInstance(err) && domainClassifier) {
    try {
      known = domainClassifier(err) ?? err;
    } catch {
      known = err;
    }
  }
  if (ToolRefused.isInstance(known)) return { class: 'semantic', message: (known.code ? `${known.code}: ${known.message}` : known.message).slice(0, 200) };
  if (ToolUnavailable.isInstance(known)) return { class: known.timedOut ? 'timeout' : 'transient', message: known.message.slice(0, 200) };
  return { class: 'transient', message: known instanceof Error ? known.message.slice(0, 200) : String(known).slice(0, 200) };
}
