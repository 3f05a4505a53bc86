// A monitoring binary whose port another process took before it bound it is started again on a
// new port, and one that failed for any other reason is not. Real processes: the binary is a
// script (test/support/flaky-script.ts) that, for its first starts, says what Prometheus says when
// its port is taken, then more lines than the kept output holds, and exits; and then serves
// /-/ready over HTTP (python3's http.server) on the port it was given. And a binary that exits
// while a process it started still holds its output open is judged all the same, and one whose
// port another process took and answers on is not taken for serving.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { supervise, SupervisedStartError } from '../../monitoring/supervise.js';
import { flakyScript } from '../support/flaky-script.js';
import { waitUntil } from '../support/wait.js';

const scratch = mkdtempSync(join(tmpdir(), 'supervise-retry-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const site = join(scratch, 'site');
mkdirSync(join(site, '-'), { recursive: true });
writeFileSync(join(site, '-', 'ready'), 'ready\n');

/** A binary whose first `failures` starts fail with `said`, then more lines than the kept tail of output holds. */
function flakyBinary(name: string, failures: number, said: string): { path: string; starts: () => number } {
  return flakyScript(scratch, name, {
    failures,
    prelude: ['for arg in "$@"; do case "$arg" in --web.listen-address=*) address="${arg#--web.listen-address=}";; esac; done'],
    fail: `echo "${said.replace('ADDRESS', '$address')}" >&2; seq 1 4000 >&2`,
    then: `exec python3 -m http.server --bind 127.0.0.1 --directory '${site}' "\${address##*:}"`,
  });
}

const PORT_TAKEN = 'level=error msg=\\"Unable to start web listener\\" err=\\"listen tcp ADDRESS: bind: address already in use\\"';
const start = (binary: string) =>
  supervise({ name: 'fake-prometheus', binary, args: (port) => [`--web.listen-address=127.0.0.1:${port}`], readyPath: '/-/ready' });

describe('a monitoring binary whose port was taken while it started', () => {
  it('is started again on a new port, and then serves', async () => {
    const binary = flakyBinary('taken-once', 1, PORT_TAKEN);
    const served = await start(binary.path);
    try {
      expect((await fetch(`${served.url}/-/ready`)).status).toBe(200);
    } finally {
      await served.stop();
    }
    // At least: the second start can lose its port for real.
    expect(binary.starts()).toBeGreaterThanOrEqual(2);
  });

  it('gives up after three starts that each lost the port', async () => {
    const binary = flakyBinary('taken-always', 9, PORT_TAKEN);
    const failed = await start(binary.path).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(SupervisedStartError);
    expect((failed as SupervisedStartError).portTaken).toBe(true);
    expect(binary.starts()).toBe(3);
  });

  it('is not started again when it failed for another reason, and says why', async () => {
    const binary = flakyBinary('bad-config', 9, 'level=error msg=\\"Error loading config\\" err=\\"parsing YAML file\\"');
    const failed = await start(binary.path).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(SupervisedStartError);
    expect((failed as SupervisedStartError).portTaken).toBe(false);
    expect((failed as Error).message).toContain('Error loading config');
    expect(binary.starts()).toBe(1);
  });
});

describe('a monitoring binary that exits before it is ready', () => {
  it('is judged on what it said, though a process it started holds its output open', async () => {
    // The holder outlives the binary by ten minutes: a start that read the output to its end
    // would wait for it, and fail this test by its timeout.
    const binary = join(scratch, 'exits-leaving-a-holder');
    const holderSaid = /^HOLDER (\d+)$/m;
    writeFileSync(
      binary,
      ['#!/bin/sh', 'sleep 600 &', 'echo "HOLDER $!" >&2', 'echo "level=error msg=\\"Error loading config\\"" >&2', 'exit 3', ''].join('\n'),
    );
    chmodSync(binary, 0o755);
    const failed = await start(binary).catch((err: unknown) => err);
    const holder = holderSaid.exec(failed instanceof Error ? failed.message : '');
    try {
      expect(failed).toBeInstanceOf(SupervisedStartError);
      expect((failed as SupervisedStartError).portTaken).toBe(false);
      expect((failed as Error).message).toContain('exited before it was ready (code 3');
      expect((failed as Error).message).toContain('Error loading config');
      expect(holder).not.toBeNull();
    } finally {
      if (holder) process.kill(Number(holder[1]), 'SIGKILL');
    }
  });
});

describe('a monitoring binary whose port another process took, and answers on', () => {
  it('is started again on a new port: what answered its readiness check was not it', async () => {
    // The first start names its port and binds nothing; this test then serves /-/ready there itself.
    const portFile = join(scratch, 'thief.port');
    const binary = flakyScript(scratch, 'answered-by-another', {
      failures: 1,
      prelude: ['for arg in "$@"; do case "$arg" in --web.listen-address=*) address="${arg#--web.listen-address=}";; esac; done'],
      fail: `echo "\${address##*:}" > '${portFile}'; exec sleep 600`,
      then: `exec python3 -m http.server --bind 127.0.0.1 --directory '${site}' "\${address##*:}"`,
    });
    const starting = start(binary.path);
    const taken = await waitUntil(() => existsSync(portFile) && readFileSync(portFile, 'utf8').trim(), 'the first start to name its port');
    const other = createServer((_, res) => res.writeHead(200).end('ready\n'));
    await new Promise<void>((resolve) => other.listen(Number(taken), '127.0.0.1', resolve));
    try {
      const served = await starting;
      try {
        expect(new URL(served.url).port).not.toBe(taken);
        expect((await fetch(`${served.url}/-/ready`)).status).toBe(200);
        expect(binary.starts()).toBe(2);
      } finally {
        await served.stop();
      }
    } finally {
      other.closeAllConnections();
      other.close();
    }
  });
});
