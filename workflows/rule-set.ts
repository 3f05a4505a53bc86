// One rule set per release. The controller carries only this release's rules; a run keeps the
// rules it started with for its whole life, so a run started by an older release is finished by
// that release (pinned Worker Versioning: docs/operations.md says how to drain old runs before an
// upgrade), never by this code. Every new execution records one marker, RULE_SET (with Temporal's
// `patched()`, in workflows/agent.ts, first thing); a history
// without it was written under older rules, and its first workflow task is refused with
// OlderRuleSetError, which names the release that replays it, instead of the nondeterminism
// error Temporal would raise somewhere later. The task fails, the run does not: once a worker of
// the right release polls, the run goes on.
//
// A behaviour change in a later release gets a new RULE_SET (and a new STATE_VERSION when the
// state changes); `patched()` stays at the interpreter's edge, never in the controller.
import { AgentError } from './agent-error.js';

/** The marker every execution of this release records first. */
export const RULE_SET = 'engine-v28';

/** The releases whose runs this one cannot replay, and where they replay. */
export const OLDER_RULES_RELEASE = 'bounded-react-temporal 0.2.x';

/**
 * A workflow task of a run started under an older rule set: its history (or the state it carries)
 * is from a release before this one. Finish the run on the release it names (docs/operations.md,
 * "Upgrading: drain the old rule set"); nothing here changes it.
 */
export class OlderRuleSetError extends AgentError {
  static override readonly errorName: string = 'OlderRuleSetError';
}

export function olderRuleSetError(what: string): OlderRuleSetError {
  return new OlderRuleSetError(
    `${what} was written under an older rule set than ${RULE_SET}; this release does not run it. Replay or finish it on ${OLDER_RULES_RELEASE} ` +
      '(keep that build polling under pinned Worker Versioning until its runs are drained: docs/operations.md)',
  );
}
