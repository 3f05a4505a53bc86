// How a tool implementation tells the engine what went wrong. Only two things matter to the
// engine: the system definitely refused (nothing happened; the model hears why), or it was
// unavailable and asking again may help. Anything else thrown is treated as unavailable, and
// for an effect "unavailable after the request may have arrived" means unknown: read back.

/** The system of record said no: the call did not happen and repeating it unchanged will not help. */
export class ToolRefused extends Error {
  override name = 'ToolRefused';
  constructor(
    message: string,
    /** A short machine-readable reason, e.g. `transfer_not_found`. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** The system of record could not be reached or answered 5xx/429: the call may be tried again. */
export class ToolUnavailable extends Error {
  override name = 'ToolUnavailable';
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
  if (!(err instanceof ToolRefused) && !(err instanceof ToolUnavailable) && domainClassifier) {
    try {
      known = domainClassifier(err) ?? err;
    } catch {
      known = err;
    }
  }
  if (known instanceof ToolRefused) return { class: 'semantic', message: (known.code ? `${known.code}: ${known.message}` : known.message).slice(0, 200) };
  if (known instanceof ToolUnavailable) return { class: known.timedOut ? 'timeout' : 'transient', message: known.message.slice(0, 200) };
  return { class: 'transient', message: known instanceof Error ? known.message.slice(0, 200) : String(known).slice(0, 200) };
}
