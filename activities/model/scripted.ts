// The scripted adapter: the replies a test wants, in order. Running out is a loud failure,
// never a silent default, so a test cannot pass by accident.
import { ApplicationFailure } from '@temporalio/activity';
import { ErrorTypes } from '../../workflows/policy.js';

export function scriptedReply(replies: unknown[], index: number): unknown {
  if (index < 0 || index >= replies.length) {
    throw ApplicationFailure.nonRetryable(`scripted model has ${replies.length} replies and was asked for reply #${index + 1}`, ErrorTypes.scriptExhausted);
  }
  return replies[index];
}
