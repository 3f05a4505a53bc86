// A run that set something up for its own work (a silence on the alerts it is fixing, a lock)
// must put it back however it ends. The route does that before a finish or an escalation, but a
// cancel, a spent budget or the deadline stops a run without asking the route. So after the
// run's last word, the workflow makes the domain's closing calls (Domain.closing) that the run's
// final view says are needed: idempotent, argument-free effects of the domain, checked so when
// the domain is defined, each under its own idempotency key, shielded from a cancel. They are
// outside the controller (the run has ended: no model, no gate, no budget), and their outcomes
// are the run result's `closing`, its receipt.
import { CancellationScope } from '@temporalio/workflow';
import { loopNow } from './arrivals.js';
import type { Domain } from './contract.js';
import { idempotencyKey, keyFor, routeView, type PlannedCall, type RunState } from './controller/index.js';
import { perform } from './perform.js';
import type { ClosingOutcome } from './messages.js';
import type { RunInput } from './run-input.js';

export async function closeRun(state: RunState, run: RunInput, domain: Domain): Promise<ClosingOutcome[]> {
  const view = routeView(state, loopNow());
  const needed = (domain.closing ?? []).filter((c) => {
    try {
      return c.needed(view) === true;
    } catch {
      return true; // a hook that throws cannot say the setup is gone: put it back
    }
  });
  const outcomes: ClosingOutcome[] = [];
  for (const [index, closing] of needed.entries()) {
    const contract = domain.tools.find((t) => t.name === closing.tool);
    if (!contract) continue;
    const callId = `close${index + 1}`;
    const call: PlannedCall = {
      callId,
      turn: state.turn,
      tool: contract.name,
      args: {},
      kind: 'effect',
      idempotent: true,
      idempotencyKey: keyFor(state, contract, {}, callId) ?? idempotencyKey(state, callId, contract.name),
      sentAt: loopNow(),
    };
    const work = perform({ type: 'invoke', calls: [call] }, run, domain, []);
    const event = await CancellationScope.nonCancellable(() => work.pending.then(work.done, work.failed));
    const result = event.type === 'observed' ? event.results[0] : undefined;
    const status = result?.status ?? 'error';
    const message = result && result.status !== 'ok' ? result.message : undefined;
    outcomes.push({ tool: contract.name, status, ...(message ? { message } : {}) });
  }
  return outcomes;
}
