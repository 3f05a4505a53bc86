// workerScoped keys: one per schema, engine-wide. Two call sites sharing a key would silently
// hand the second one the first one's schema, so the keys are checked here, from the sources.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { workerScoped } from '../../workflows/worker-scoped.js';

const root = fileURLToPath(new URL('../../workflows/', import.meta.url));
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));

describe('workerScoped', () => {
  it('builds once per key and hands back the same value', () => {
    let builds = 0;
    const build = () => ({ n: ++builds });
    const a = workerScoped('unit-test.once', build);
    const b = workerScoped('unit-test.once', build);
    expect(a).toBe(b);
    expect(builds).toBe(1);
  });

  it('refuses a second builder under a key another builder took', () => {
    workerScoped('unit-test.taken', () => ({ first: true }));
    expect(() => workerScoped('unit-test.taken', () => ({ second: true }))).toThrow(/workerScoped key unit-test.taken is used by two different builders/);
  });

  it('every key in the engine is used by exactly one call site', () => {
    const keys = sources(root).flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/workerScoped\('([^']+)'/g)].map((m) => m[1]));
    expect(keys.length).toBeGreaterThan(30);
    const repeated = keys.filter((k, i) => keys.indexOf(k) !== i);
    expect(repeated).toEqual([]);
  });
});
