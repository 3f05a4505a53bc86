// What a start may carry: a scripted reply nested beyond any model's reply is refused where it
// enters (the workflow's and the client's parse), so no run exists whose state cannot be shown.
import { describe, expect, it } from 'vitest';
import { checkRunInput } from '../../client/start-run.js';
import { InvalidRunInputError } from '../../client/agent-errors.js';
import { MAX_REPLY_DEPTH, RunInput } from '../../workflows/run-input.js';

const nested = (levels: number): unknown => {
  let value: unknown = 'deep';
  for (let i = 0; i < levels; i++) value = { inner: value };
  return value;
};

describe('run input depth', () => {
  it('takes replies as deep as a model would send and refuses deeper ones, even absurdly deep', () => {
    const run = (reply: unknown) => ({ domain: 'payments', caseId: 'PX-1', model: { adapter: 'scripted', replies: [reply] } });
    expect(RunInput.safeParse(run(nested(MAX_REPLY_DEPTH))).success).toBe(true);
    const refused = RunInput.safeParse(run(nested(MAX_REPLY_DEPTH + 1)));
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toMatch(/nest at most 32 levels/);
    expect(RunInput.safeParse(run(nested(100_000))).success).toBe(false);
    expect(() => checkRunInput(run(nested(5_000)) as RunInput)).toThrow(InvalidRunInputError);
  });
});
