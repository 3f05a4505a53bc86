// How the test run provisions Chromium (test/setup/chromium.ts): found where it is named, else
// installed when we may, else one line that says what to run. The global setup exits non-zero
// with that line before any test. Real files and real shell commands stand in for apt-get. It is
// an integration test because its last test runs the integration project's global setup.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { APT_INSTALL_CHROMIUM, missingChromiumLine, provisionChromium } from '../setup/chromium.js';

const scratch = mkdtempSync(join(tmpdir(), 'chromium-provision-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

function executable(name: string): string {
  const path = join(scratch, name);
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, 0o755);
  return path;
}

describe('provisioning Chromium for the tests', () => {
  it('uses CHROMIUM_PATH when it names an executable, and the default path otherwise', () => {
    const named = executable('named-chromium');
    expect(provisionChromium({ env: { CHROMIUM_PATH: named }, defaultPath: join(scratch, 'absent') })).toEqual({ kind: 'found', path: named });
    const atDefault = executable('default-chromium');
    expect(provisionChromium({ env: {}, defaultPath: atDefault, isRoot: false })).toEqual({ kind: 'found', path: atDefault });
  });

  it('a CHROMIUM_PATH that is not there is reported, never installed over', () => {
    const absent = join(scratch, 'no-such-chromium');
    const result = provisionChromium({ env: { CHROMIUM_PATH: absent }, isRoot: true, installCommand: `touch ${join(scratch, 'install-ran')}` });
    expect(result.kind).toBe('missing');
    if (result.kind !== 'missing') return;
    expect(missingChromiumLine(result)).toContain(`CHROMIUM_PATH=${absent} is not an executable Chromium`);
    expect(spawnSync('test', ['-e', join(scratch, 'install-ran')]).status).not.toBe(0);
  });

  it('not root: one line naming the exact apt-get command, on one line', () => {
    const result = provisionChromium({ env: {}, defaultPath: join(scratch, 'missing-chromium'), isRoot: false });
    expect(result.kind).toBe('missing');
    if (result.kind !== 'missing') return;
    const line = missingChromiumLine(result);
    expect(line).toContain(`sudo sh -c '${APT_INSTALL_CHROMIUM}'`);
    expect(line).toContain(join(scratch, 'missing-chromium'));
    expect(line).not.toContain('\n');
  });

  it('root: runs the install command; a failing one gives the line with its reason, a working one is used', () => {
    const failing = provisionChromium({
      env: {},
      defaultPath: join(scratch, 'still-missing'),
      isRoot: true,
      installCommand: 'echo "E: Unable to locate package chromium" >&2; exit 100',
    });
    expect(failing.kind).toBe('missing');
    if (failing.kind === 'missing') expect(missingChromiumLine(failing)).toContain('E: Unable to locate package chromium');

    const target = join(scratch, 'installed-chromium');
    const silent = provisionChromium({ env: {}, defaultPath: target, isRoot: true, installCommand: 'true' });
    expect(silent.kind).toBe('missing');
    if (silent.kind === 'missing') expect(silent.instruction).toContain(`left no executable at ${target}`);

    const installing = `printf '#!/bin/sh\\n' > ${target} && chmod 755 ${target}`;
    expect(provisionChromium({ env: {}, defaultPath: target, isRoot: true, installCommand: installing })).toEqual({ kind: 'installed', path: target });
  });

  it('the whole test run stops before any test, exit 1, with that one line', () => {
    // vitest itself, with the integration project's global setup, pointed at a Chromium that is
    // not there (the unit project has no global setup, so it would not notice). The file it names
    // is this one, held to its first test: a setup that went on would pass it and exit 0.
    const run = spawnSync('npx', ['vitest', 'run', '--project', 'integration', 'test/integration/chromium-provision.test.ts', '-t', 'uses CHROMIUM_PATH'], {
      cwd: repoRoot,
      encoding: 'utf8',
      env: { ...process.env, CHROMIUM_PATH: join(scratch, 'nowhere', 'chromium') },
      timeout: 110_000,
    });
    expect(run.status).toBe(1);
    const lines = run.stderr.split('\n').filter((l) => l.includes('tests need Chromium'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('not an executable Chromium');
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/Test Files|passed|✓/);
  });
});
