// What a start statement and a signed request are signed for. Their run id alone is the workflow
// id, which anyone may start: someone who reads an operator's start before its first workflow task
// could end that run and start the same id with the operator's statements and settings of their
// own (another model, effects the operator ruled out, a longer approval wait). So each names the
// namespace and the settings it was signed for, as one digest; a run whose own differ takes the
// start as naming nobody and the request as unsigned text. A note sent to a running run may name
// its run the same way (client/run-binding-of.ts), and is then unsigned text anywhere else.
import type { RunInput } from '../run-input.js';
import { digestOf } from './statement.js';

/** The digest a start or a request made for `run` in `namespace` carries (its statements aside). */
export function runBinding(namespace: string, run: Omit<RunInput, 'start' | 'request'> & Partial<Pick<RunInput, 'start' | 'request'>>): string {
  const { start: _start, request: _request, ...settings } = run;
  // As the workflow receives it: JSON, whatever the signer's object held (a Date, a toJSON, undefined).
  return digestOf({ namespace, settings: JSON.parse(JSON.stringify(settings)) as unknown });
}

/**
 * `{ unbound: true }` when a statement names another run than `bound`, this run's runBinding. A
 * start or a request must name one (`required`); a plain note names none and is not marked.
 */
export function unboundMark(statement: { bound?: string | undefined }, bound: string, required: boolean): { unbound?: true } {
  if (statement.bound === undefined && !required) return {};
  return statement.bound === bound ? {} : { unbound: true };
}
