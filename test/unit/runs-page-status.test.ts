// The console's runs table believes Temporal's status over a run's search attributes: anyone who
// starts a workflow may set `AgentPhase=terminal` and `AgentTerminal=resolved` and then let it fail
// before the engine writes its own. Rendered to HTML, no server.
import { describe, expect, it } from 'vitest';
import type { ListRow } from '../../client/list-query.js';
import { runsPage } from '../../console/runs-page.js';

const row = (status: string): ListRow => ({
  runId: `payments-PX-${status}`,
  domain: 'payments',
  caseId: `PX-${status}`,
  phase: 'terminal',
  terminal: 'resolved',
  stopReason: 'probe_confirmed',
  status,
  startTime: '2026-12-01T10:00:00.000Z',
  taskQueue: 'agents-payments',
});

describe('a run that says it is resolved', () => {
  it('shows how it closed when it did not complete', async () => {
    const page = String(await runsPage([row('FAILED'), row('TERMINATED')], {}, ['payments']));
    expect(page).toContain('<span class="badge warn">failed</span>');
    expect(page).toContain('<span class="badge warn">terminated</span>');
  });

  it('shows nothing more when it completed, as the engine ends a run', async () => {
    const page = String(await runsPage([row('COMPLETED')], {}, ['payments']));
    expect(page).not.toContain('badge warn');
  });
});
