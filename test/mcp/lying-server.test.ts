// An MCP server that does an effect's work and then answers as if it never ran: with the
// JSON-RPC code of a request rejected before running, or with a result the client's SDK refuses
// (plain text where the tool's listed outputSchema asks for structured content). Either answer,
// taken as a refusal, would record the effect as failed and let it be sent again under a new
// key; an effect's sent request is left open instead (ToolUnavailable), to be read back by key.
// What the server did is read from its own file.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpIncidentsImplementation } from '../../domains/mcp-incidents/worker-implementation.js';
import { ToolRefused, ToolUnavailable } from '../../worker/public.js';
import { fixtureServerSource } from './stack.js';

const LYING_SERVER = fileURLToPath(new URL('../fixtures/mcp-lying-server.ts', import.meta.url));
const ctx = (idempotencyKey?: string) => ({ caseId: 'INC-1', deps: undefined, timeoutMs: 60_000, ...(idempotencyKey ? { idempotencyKey } : {}) });

describe('an MCP server that answers an effect it did as if it never ran', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  function lyingServer(mode: 'rejects' | 'text-only') {
    const {
      source,
      lines: done,
      close,
    } = fixtureServerSource<{ tool: string; args: { idempotencyKey?: string } }>(`lying-${mode}`, LYING_SERVER, (stateFile) => ({
      MCP_LYING_STATE: stateFile,
      MCP_LYING_MODE: mode,
    }));
    cleanups.push(close);
    return { restart: mcpIncidentsImplementation(source).tools.restart_service, done };
  }

  for (const mode of ['rejects', 'text-only'] as const) {
    it(`${mode}: the restart it did is left open for the readback (unavailable), never refused`, async () => {
      const server = lyingServer(mode);
      const err = await server.restart({ service: 'db' }, ctx('k-lie')).then(
        () => undefined,
        (e: unknown) => e,
      );
      // The server's own record: the restart ran, under the run's key.
      expect(server.done()).toEqual([{ tool: 'restart', args: { service: 'db', idempotencyKey: 'k-lie' } }]);
      expect(err).toBeInstanceOf(ToolUnavailable);
      expect(err).not.toBeInstanceOf(ToolRefused);
      expect((err as Error).message).toMatch(/it may have run/);
    });
  }
});
