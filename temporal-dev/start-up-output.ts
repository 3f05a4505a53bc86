// What a child process wrote while it started (the Temporal dev server's stderr, Prometheus' or
// Alertmanager's output), kept so that a failed start can say why and whether to try again. A
// port taken between our choosing it and the child binding it shows up in the dev server as
// several "Failed to start gRPC listener ... address already in use" lines and then a long panic
// stack: a record that kept only the last lines lost the cause (CI, stop 69, where the start was
// not tried again). So the first and the last lines are kept, and every taken port is noted as
// the bytes arrive, wherever the chunks happen to split. One record per stream. And how long the
// output of a child that exited by itself is read for before its start is judged.

/** How much of the start and of the end of the output a failure message shows. */
const KEEP = 4_096;
const TAKEN = /:(\d+): bind: address already in use/g;
/** Longer than any match above, so a match split across two chunks is still seen whole. */
const CARRY = 64;

export class StartUpOutput {
  /** All of it while it is short; then only its start and its end. */
  private whole = '';
  private ends: { head: string; tail: string } | undefined;
  private carry = '';
  /** Ports the child could not bind because something else held them. */
  readonly takenPorts = new Set<number>();

  add(chunk: string): void {
    if (this.ends) {
      this.ends.tail = (this.ends.tail + chunk).slice(-KEEP);
    } else {
      this.whole += chunk;
      if (this.whole.length > 2 * KEEP) {
        this.ends = { head: this.whole.slice(0, KEEP), tail: this.whole.slice(-KEEP) };
        this.whole = '';
      }
    }
    const text = this.carry + chunk;
    for (const match of text.matchAll(TAKEN)) this.takenPorts.add(Number(match[1]));
    this.carry = text.slice(-CARRY);
  }

  text(): string {
    return this.ends ? `${this.ends.head}\n[… the middle left out …]\n${this.ends.tail}` : this.whole;
  }
}

/**
 * How long the output of a child that exited by itself is read for: to its end ('close'), so its
 * last words (which port was taken) are all in, but no longer than this. A process the child
 * started itself (a wrapper script's) may hold the pipes open long after the child is gone.
 */
const DRAIN_MS = 5_000;

/** Resolves when `closed` does (the child's pipes are read to their end), or after DRAIN_MS. */
export async function drained(closed: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, DRAIN_MS)))]);
  clearTimeout(timer);
}
