// A read asked again because its answer went stale (a slow model turn, a long wait) is a
// re-read, not a loop.
import { describe, expect, it } from 'vitest';
import { incidents } from '../../domains/incidents/domain.js';
import { metricsOf, out, Run } from '../support/driver.js';

function readTwice(gapMs: number): Run {
  const run = new Run(incidents);
  run.call(metricsOf('db'));
  run.observeOk({ get_metrics: out.metrics(true, 40) });
  run.tick(gapMs);
  run.call(metricsOf('db'));
  return run;
}

describe('re-reading stale evidence', () => {
  it('is admitted once the earlier answer is past its max age (metrics: 2 minutes)', () => {
    const run = readTwice(3 * 60_000);
    expect(run.lastDecision).toMatchObject({ accepted: true, reason: 'admitted' });
    expect(run.command.type).toBe('invoke');
  });

  it('is still a loop while the answer is fresh', () => {
    expect(readTwice(10_000).lastControl?.code).toBe('loop_nudge');
  });
});

describe('a source that was stale when it answered', () => {
  it('asked again unchanged is still a loop: it has nothing newer to say', async () => {
    const { payments } = await import('../../domains/payments/domain.js');
    const { readReplica } = await import('../support/driver.js');
    const run = new Run(payments);
    run.call(readReplica);
    // The replica lags by 5 minutes; its contract calls anything older than a minute stale.
    run.observeOk({ read_replica: out.replica('PENDING') });
    run.tick(3 * 60_000);
    run.call(readReplica);
    expect(run.lastControl?.code).toBe('loop_nudge');
  });
});
