// A dev server start whose port was taken from under it is tried again, and one whose taken port
// the caller fixed is not. Real processes: the CLI is a script that, on its first start, writes
// what the pinned CLI wrote when another process took its HTTP port (the fixture) and a long
// panic's stack after it, and exits 1; later starts run the real CLI, and the started server is
// asked for its system info. (A real second start can lose a port too: hence "at least".) And a
// start whose port another server took and answers on is not taken for serving.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveTemporalCli } from '../../temporal-dev/cli.js';
import { DevServerStartError, startDevServer } from '../../temporal-dev/dev-server.js';
import { quietLog } from '../../temporal-dev/log.js';
import { projectRoot } from '../../temporal-dev/paths.js';
import { flakyScript } from '../support/flaky-script.js';
import { waitUntil } from '../support/wait.js';

const fixture = join(projectRoot, 'test/fixtures/dev-server-port-taken.stderr');
const TAKEN = 40787;
const scratch = mkdtempSync(join(tmpdir(), 'dev-server-retry-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
/** What follows the cause when the server panics: its goroutine's stack, far longer than the cause. */
const stack = join(scratch, 'stack');
writeFileSync(
  stack,
  Array.from({ length: 2_000 }, (_, i) => `go.uber.org/fx.(*module).invoke(0x${i.toString(16)})\n\t/go/pkg/mod/go.uber.org/fx@v1.24.0/module.go:335\n`).join(
    '',
  ),
);

/** The pinned CLI the test setup installed. */
function realCli(): string {
  const real = resolveTemporalCli(quietLog);
  if (real.kind !== 'binary') throw new Error('the test setup installs the Temporal CLI');
  return real.path;
}

/** A CLI whose first `failures` server starts fail as the fixture did (its --version probes are no starts). */
function flakyCli(name: string, failures: number): { path: string; starts: () => number } {
  return flakyScript(scratch, name, { failures, counts: '[ "$1" = server ]', fail: `cat '${fixture}' '${stack}' >&2`, then: `exec '${realCli()}' "$@"` });
}

async function withCli<T>(path: string, body: () => Promise<T>): Promise<T> {
  const saved = process.env.TEMPORAL_CLI_PATH;
  process.env.TEMPORAL_CLI_PATH = path;
  try {
    return await body();
  } finally {
    if (saved === undefined) delete process.env.TEMPORAL_CLI_PATH;
    else process.env.TEMPORAL_CLI_PATH = saved;
  }
}

describe('a dev server whose port was taken while it started', () => {
  it('is started again, and the second start serves', async () => {
    const cli = flakyCli('taken-once', 1);
    const said: string[] = [];
    const server = await withCli(cli.path, () => startDevServer({ headless: true, log: (line) => said.push(line) }));
    try {
      const connection = await Connection.connect({ address: server.address });
      try {
        await connection.workflowService.getSystemInfo({});
      } finally {
        await connection.close();
      }
    } finally {
      await server.stop();
    }
    expect(cli.starts()).toBeGreaterThanOrEqual(2);
    expect(said.filter((line) => line.includes(`port ${TAKEN} was taken`))).toHaveLength(1);
  });

  it('is not started again when the port taken is the one the caller fixed, and says which', async () => {
    const cli = flakyCli('fixed-port', 3);
    const failed = await withCli(cli.path, () => startDevServer({ headless: true, port: TAKEN, log: quietLog })).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(DevServerStartError);
    expect([...(failed as DevServerStartError).takenPorts]).toEqual([TAKEN]);
    expect((failed as DevServerStartError).message).toContain('address already in use');
    expect(cli.starts()).toBe(1);
  });

  it('gives up after three starts that each lost a port', async () => {
    const cli = flakyCli('taken-always', 9);
    const failed = await withCli(cli.path, () => startDevServer({ headless: true, log: quietLog })).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(DevServerStartError);
    expect(cli.starts()).toBe(3);
  });
});

describe('a dev server whose port another server took, and answers on', () => {
  it('is started again on a new port: what answered was not it', async () => {
    // The first start names its port and binds nothing; another dev server is then started there.
    const portFile = join(scratch, 'other.port');
    const cli = flakyScript(scratch, 'answered-by-another', {
      failures: 1,
      counts: '[ "$1" = server ]',
      prelude: ['prev=""; for arg in "$@"; do [ "$prev" = --port ] && port="$arg"; prev="$arg"; done'],
      fail: `echo "$port" > '${portFile}'; exec sleep 600`,
      then: `exec '${realCli()}' "$@"`,
    });
    const starting = withCli(cli.path, () => startDevServer({ headless: true, log: quietLog }));
    const taken = await waitUntil(() => existsSync(portFile) && readFileSync(portFile, 'utf8').trim(), 'the first start to name its port');
    const other = await startDevServer({ headless: true, port: Number(taken), log: quietLog });
    try {
      const server = await starting;
      try {
        expect(server.address).not.toBe(other.address);
        // At least: the other server starts while this start is under way, through the same script
        // (the CLI path is the process's), so its start is counted too.
        expect(cli.starts()).toBeGreaterThanOrEqual(2);
      } finally {
        await server.stop();
      }
    } finally {
      await other.stop();
    }
  });
});
