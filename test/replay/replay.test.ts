// Replays every recorded history against the current workflow code. A failure here means a
// change would break runs that are already in flight. This release carries one rule set
// (workflows/rule-set.ts): histories/ holds runs recorded under it, and older-rule-set/ holds
// runs of earlier releases, which must be refused by name (OlderRuleSetError), not replayed and
// not failed with a nondeterminism error (test/replay/README.md).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { RULE_SET } from '../../workflows/rule-set.js';

const dir = fileURLToPath(new URL('./histories/', import.meta.url));
const olderDir = fileURLToPath(new URL('./older-rule-set/', import.meta.url));
const fixtures = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));
const older = readdirSync(olderDir).filter((f) => f.endsWith('.json'));

/** The workflow id a fixture was recorded under (its file name): replay must use the same one. */
const workflowIdOf = (file: string) =>
  file
    .split('/')
    .at(-1)
    ?.replace(/\.json$/, '') ?? file;

function replay(path: string, workflowId: string): Promise<void> {
  const history = historyFromJSON(JSON.parse(readFileSync(path, 'utf8')));
  return Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, workflowId);
}

describe('recorded histories replay on the current code', () => {
  it('has fixtures for the scenarios and the shapes', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(20);
    expect(fixtures.filter((f) => f.startsWith('shapes/')).length).toBeGreaterThanOrEqual(16);
  });

  it.each(fixtures)('%s', async (file) => {
    await replay(`${dir}${file}`, workflowIdOf(file));
  });
});

describe('a history from an older rule set', () => {
  it('has ones from the rule sets before and one from before the trust boundary', () => {
    expect(older.length).toBeGreaterThanOrEqual(3);
  });

  it.each(older)('%s is refused at its first task with OlderRuleSetError, naming where it replays', async (file) => {
    const workflowId = workflowIdOf(file).replace(/^(engine-v\d+|before-trust-boundary)-/, '');
    const error = await replay(`${olderDir}${file}`, workflowId).then(
      () => undefined,
      (err: unknown) => err,
    );
    // The replayer reports the failed task with its cause: our error, not a nondeterminism error.
    const text = explain(error);
    expect(text).toContain('OlderRuleSetError');
    expect(text).toContain(`older rule set than ${RULE_SET}`);
    expect(text).toContain('0.2.x');
    expect(text).not.toMatch(/nondetermin/i);
  });
});

function explain(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    parts.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
    if (parts.length > 8) break;
  }
  return parts.join(' <- ');
}
