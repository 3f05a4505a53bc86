// The workflow bundle a worker keeps between starts (worker/bundle-cache.ts): made once, reused
// while every file that went into it is unchanged, made again when one changes or when other
// bundler plugins ask for other code. Real webpack bundles of a real workflows module.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cachedBundle } from '../../worker/bundle-cache.js';
import { agentMetricsPlugin } from '../../worker/telemetry-plugin.js';
import { QUARANTINE_INTERCEPTORS_ID } from '../../workflows/quarantine-interceptors.js';

const examples = fileURLToPath(new URL('../../domains/workflows.ts', import.meta.url));

describe('the bundle cache', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-bundle-cache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('bundles once, then hands the same file back while nothing that went into it changed', async () => {
    const cache = join(dir, 'same');
    const first = await cachedBundle(examples, { dir: cache });
    const second = await cachedBundle(examples, { dir: cache });
    expect(first.reused).toBe(false);
    expect(second).toEqual({ codePath: first.codePath, reused: true });
    // The quarantine's interceptors are in it: a worker refuses a bundle without them.
    expect(readFileSync(second.codePath, 'utf8')).toContain(QUARANTINE_INTERCEPTORS_ID);
  });

  it('bundles again when a file that went into it changes, and when other plugins bundle', async () => {
    const cache = join(dir, 'changed');
    // Inside the checkout, so the bundler finds the packages a workflows module imports.
    const scratch = fileURLToPath(new URL('../../.agent/', import.meta.url));
    mkdirSync(scratch, { recursive: true });
    const own = mkdtempSync(join(scratch, 'bundle-cache-test-'));
    const module = join(own, 'workflows.ts');
    writeFileSync(module, `export { agentWorkflow } from ${JSON.stringify(examples)};\n`);
    const before = await cachedBundle(module, { dir: cache });
    expect((await cachedBundle(module, { dir: cache })).reused).toBe(true);
    writeFileSync(module, `// changed\nexport { agentWorkflow } from ${JSON.stringify(examples)};\n`);
    const after = await cachedBundle(module, { dir: cache });
    expect(after.reused).toBe(false);
    expect(after.codePath).not.toBe(before.codePath);
    const metrics = await cachedBundle(module, { dir: cache, plugins: [agentMetricsPlugin()] });
    expect(metrics.reused).toBe(false);
    expect(metrics.codePath).not.toBe(after.codePath);
    rmSync(own, { recursive: true, force: true });
  });
});
