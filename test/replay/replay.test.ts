// Replays every recorded history against the current workflow code. A failure here means a
// change would break runs that are already in flight: guard it with patched() instead, or
// re-record on purpose if no such runs can exist (test/replay/README.md).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';

const dir = fileURLToPath(new URL('./histories/', import.meta.url));
const fixtures = readdirSync(dir).filter((f) => f.endsWith('.json'));

describe('recorded histories replay on the current code', () => {
  it('has fixtures for the scenarios', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(10);
  });

  it.each(fixtures)('%s', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(`${dir}${file}`, 'utf8')));
    await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, file.replace(/\.json$/, ''));
  });
});
