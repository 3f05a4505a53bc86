// Replays every recorded history against the current workflow code. A failure here means a
// change would break runs that are already in flight: guard it with patched() instead, or
// re-record on purpose if no such runs can exist (test/replay/README.md).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';

// Each folder holds histories recorded by an older version of the workflow; the top level is
// the current one. All of them must keep replaying.
const dir = fileURLToPath(new URL('./histories/', import.meta.url));
const fixtures = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));

describe('recorded histories replay on the current code', () => {
  it('has fixtures for the scenarios', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(20);
  });

  it.each(fixtures)('%s', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(`${dir}${file}`, 'utf8')));
    const workflowId =
      file
        .split('/')
        .at(-1)
        ?.replace(/\.json$/, '') ?? file;
    await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, workflowId);
  });
});
