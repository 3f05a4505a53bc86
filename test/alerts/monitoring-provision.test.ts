// How the alert loop provisions Prometheus and Alertmanager (monitoring/provision.ts): found where
// they are named, else installed when we may, else one line that says what to run. Real files and
// real shell commands stand in for apt-get.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { APT_INSTALL_MONITORING, missingMonitoringLine, provisionMonitoring } from '../../monitoring/provision.js';

const scratch = mkdtempSync(join(tmpdir(), 'monitoring-provision-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function executable(name: string): string {
  const path = join(scratch, name);
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, 0o755);
  return path;
}

describe('provisioning Prometheus and Alertmanager', () => {
  it('uses PROMETHEUS_PATH and ALERTMANAGER_PATH when they name executables, the default paths otherwise', () => {
    const prometheus = executable('named-prometheus');
    const alertmanager = executable('named-alertmanager');
    expect(provisionMonitoring({ env: { PROMETHEUS_PATH: prometheus, ALERTMANAGER_PATH: alertmanager }, isRoot: false })).toEqual({
      kind: 'found',
      prometheus,
      alertmanager,
    });
    const defaults = { prometheus: executable('default-prometheus'), alertmanager: executable('default-alertmanager') };
    expect(provisionMonitoring({ env: {}, defaults, isRoot: false })).toEqual({ kind: 'found', ...defaults });
  });

  it('a named path that is not there is reported, never installed over', () => {
    const absent = join(scratch, 'no-such-prometheus');
    const marker = join(scratch, 'install-ran');
    const result = provisionMonitoring({
      env: { PROMETHEUS_PATH: absent },
      defaults: { alertmanager: executable('am') },
      isRoot: true,
      installCommand: `touch ${marker}`,
    });
    expect(result.kind).toBe('missing');
    if (result.kind === 'missing') expect(missingMonitoringLine(result)).toContain(`PROMETHEUS_PATH=${absent} is not an executable prometheus`);
    expect(spawnSync('test', ['-e', marker]).status).not.toBe(0);
  });

  it('not root: one line naming the exact apt-get command', () => {
    const result = provisionMonitoring({ env: {}, defaults: { prometheus: join(scratch, 'p'), alertmanager: join(scratch, 'a') }, isRoot: false });
    expect(result.kind).toBe('missing');
    if (result.kind !== 'missing') return;
    const line = missingMonitoringLine(result);
    expect(line).toContain(`sudo sh -c '${APT_INSTALL_MONITORING}'`);
    expect(line).not.toContain('\n');
  });

  it('root: runs the install command; a failing one gives its reason, one that installs nothing says so, a working one is used', () => {
    const defaults = { prometheus: join(scratch, 'inst-prometheus'), alertmanager: join(scratch, 'inst-alertmanager') };
    const failing = provisionMonitoring({ env: {}, defaults, isRoot: true, installCommand: 'echo "E: Unable to locate package prometheus" >&2; exit 100' });
    expect(failing.kind === 'missing' && missingMonitoringLine(failing)).toContain('E: Unable to locate package prometheus');
    const silent = provisionMonitoring({ env: {}, defaults, isRoot: true, installCommand: 'true' });
    expect(silent.kind === 'missing' && silent.instruction).toContain('left no executable');
    const install = Object.values(defaults)
      .map((p) => `printf '#!/bin/sh\\n' > ${p} && chmod 755 ${p}`)
      .join(' && ');
    expect(provisionMonitoring({ env: {}, defaults, isRoot: true, installCommand: install })).toEqual({ kind: 'installed', ...defaults });
  });
});
