// Polling until a run (or anything else reachable by a query) is in the state we want: the demo
// waits for approval requests with it, and so do the tests.

export interface WaitOptions {
  timeoutMs?: number;
  everyMs?: number;
}

/** Resolves with the first value of `probe` that is neither undefined nor false. */
export async function waitUntil<T>(probe: () => Promise<T | undefined | false>, what: string, options: WaitOptions = {}): Promise<T> {
  const { timeoutMs = 30_000, everyMs = 50 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
