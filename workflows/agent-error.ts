// The one root of every error the engine throws, so a program can ask "is this ours, and
// which one?" without `instanceof`. `instanceof` fails when two copies of the engine meet
// (a team's domain package and its worker each installing one, a bundle beside node_modules,
// Temporal's workflow sandbox, a vm realm): the classes differ though the error is the same.
// So each instance carries a registered symbol per class in its line (`Symbol.for` is shared by
// every copy and realm), and `isInstance` asks for the symbol, as the AI SDK's errors do.
// Workflow-safe: no imports, nothing but the language, so workflow code may throw these too.
// docs/errors.md lists the family: who throws each, and what to do.

const PREFIX = 'bounded-react-temporal.error';

/** The registered symbol an instance of the class named `errorName` carries; the root's has no suffix. */
function markerOf(errorName: string): symbol {
  return Symbol.for(errorName === 'AgentError' ? PREFIX : `${PREFIX}.${errorName}`);
}

/**
 * The root of the engine's errors. Each subclass names itself once in a static `errorName`
 * (its `name`, kept by bundlers that rename classes) and answers `isInstance` for itself and
 * its subclasses, from any copy of the engine.
 *
 * @example
 * ```ts
 * try {
 *   await agent.approve(runId, requestId, key);
 * } catch (err) {
 *   if (!RunEndedError.isInstance(err)) throw err; // a run that ended has nothing left to approve
 * }
 * ```
 */
export class AgentError extends Error {
  /** The class's name in every copy of the engine; each subclass declares its own. */
  static readonly errorName: string = 'AgentError';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    // One marker per class from this one up to the root: RunNotFoundError.isInstance and
    // AgentClientError.isInstance are both true for a RunNotFoundError. Not enumerable, so an
    // error prints and compares as it did before it carried them.
    for (let c: unknown = new.target; typeof c === 'function' && c !== Error; c = Object.getPrototypeOf(c)) {
      if (Object.hasOwn(c, 'errorName')) Object.defineProperty(this, markerOf((c as typeof AgentError).errorName), { value: true });
    }
    this.name = new.target.errorName;
  }

  /** True for an error of this class (or a subclass) made by any copy of the engine, in any realm. */
  static isInstance<T>(this: { readonly errorName: string; readonly prototype: T }, value: unknown): value is T {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[markerOf(this.errorName)] === true;
  }
}
