// The engine's `list` on the cluster, where visibility is a separate PostgreSQL database fed
// asynchronously by history's visibility queue (the dev server's SQLite feeds it too, but with
// nothing in between to restart). A run that has ended shows as terminal in `list` only once
// that queue has written its last search attributes, so a caller that lists straight after a
// run ends must allow for a delay: this waits for it, and reports how long it was.
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentClient } from '../client/agent-client.js';

export interface ListCheck {
  /** Runs `list` showed as terminal at the end. */
  listed: number;
  expected: number;
  /** How long after the runs ended `list` caught up (0: it already had them all). */
  waitedMs: number;
  /** Terminal rows whose Temporal status is not COMPLETED (must be none: every run finished itself). */
  notCompleted: string[];
}

/** Lists terminal runs until `expected` are there or `timeoutMs` passes. */
export async function checkList(agent: AgentClient, expected: number, timeoutMs = 60_000): Promise<ListCheck> {
  const began = Date.now();
  for (;;) {
    const rows = await agent.list({ phase: 'terminal', limit: Math.max(expected, 1) + 10 });
    if (rows.length >= expected || Date.now() - began > timeoutMs) {
      return {
        listed: rows.length,
        expected,
        waitedMs: Date.now() - began,
        notCompleted: rows.filter((r) => r.status !== 'COMPLETED').map((r) => `${r.runId}=${r.status}`),
      };
    }
    await sleep(500);
  }
}
