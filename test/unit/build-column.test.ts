// The console's runs table shows the build a run is on only when some run is under Worker
// Versioning: a team that does not use it sees the table it always saw. Rendered to HTML, no
// server.
import { describe, expect, it } from 'vitest';
import type { ListRow } from '../../client/list-query.js';
import { runsPage } from '../../console/runs-page.js';

const row = (runId: string, build?: ListRow['build']): ListRow => ({
  runId,
  domain: 'payments',
  caseId: runId,
  phase: 'awaiting_approval',
  terminal: null,
  stopReason: null,
  status: 'RUNNING',
  startTime: '2026-12-01T10:00:00.000Z',
  taskQueue: 'agents-payments',
  ...(build !== undefined ? { build } : {}),
});

describe('the runs table and builds', () => {
  it('has a build column, a cell per run, when a run is versioned', async () => {
    const page = String(
      await runsPage([row('PX-1', { deploymentName: 'pay', buildId: 'b7', behavior: 'pinned', pinnedByOperator: false }), row('PX-2', null)], {}, ['payments']),
    );
    expect(page).toContain('<th>Build</th>');
    expect(page).toMatch(/<td class="build">b7 pinned<\/td>/);
    expect(page).toMatch(/<td class="build">-<\/td>/);
  });

  it('has none when no run is', async () => {
    const page = String(await runsPage([row('PX-1'), row('PX-2', null)], {}, ['payments']));
    expect(page).not.toContain('Build');
  });
});
