// How the server's last events become "the run's workflow task is failing": a recorded failure
// carries its message; a first attempt that timed out hides the later failures (Temporal keeps
// retried attempts transient), so a run stuck that way is still reported, with the reason.
import { describe, expect, it } from 'vitest';
import { lastWorkflowTaskFailure } from '../../client/server-facts.js';

const at = { seconds: 1_800_000_000, nanos: 0 };

describe('lastWorkflowTaskFailure', () => {
  it('names the recorded failure and its message', () => {
    const events = [
      { eventTime: at, workflowTaskFailedEventAttributes: { cause: 14, failure: { message: 'boom' } } },
      { workflowTaskStartedEventAttributes: {} },
    ];
    expect(lastWorkflowTaskFailure(events, 3, true)).toMatchObject({ message: 'boom', cause: 'WORKFLOW_WORKER_UNHANDLED_FAILURE', attempt: 3 });
  });

  it('reports a timed-out task only when the caller counts timeouts, and a completed task after it clears it', () => {
    const timedOut = [{ eventTime: at, workflowTaskTimedOutEventAttributes: { timeoutType: 2 } }, { workflowTaskStartedEventAttributes: {} }];
    expect(lastWorkflowTaskFailure(timedOut, 4, true)).toMatchObject({ cause: 'TIMED_OUT', attempt: 4 });
    expect(lastWorkflowTaskFailure(timedOut, 4, true)?.message).toMatch(/^the workflow task timed out \(4 attempts so far/);
    expect(lastWorkflowTaskFailure(timedOut, 4, false)).toBeNull();
    expect(lastWorkflowTaskFailure([{ workflowTaskCompletedEventAttributes: {} }, ...timedOut], 1, true)).toBeNull();
  });
});
