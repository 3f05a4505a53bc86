// The inputs of a run's cancel signal and addNote update, built and checked without a server,
// so a caller (AgentClient, the CLI) refuses a bad one before it connects (InvalidRequestError).
import type { z } from 'zod';
import { CancelInput, NoteInput } from '../workflows/messages.js';
import type { CancelOptions, NoteOptions } from './agent-client-types.js';
import { InvalidRequestError } from './agent-errors.js';
import { formatZodError } from './errors.js';
import { signNote } from './sign.js';

/**
 * The note as the run will receive it: signed with `key` (for the run `bound` names, when given:
 * client/run-binding-of.ts), or unsigned by `by`. Needs no server, so a caller can refuse a bad
 * note before connecting (InvalidRequestError).
 */
export function noteInput(runId: string, text: string, options: NoteOptions, bound?: string): NoteUpdateInput {
  if (options.key && options.by !== undefined) throw new InvalidRequestError('give a key or an author, not both (a signed note is by whoever the key names)');
  if (!options.key && options.by === undefined) throw new InvalidRequestError('an unsigned note needs an author (by)');
  const input = options.key ? signNote(options.key, runId, text, bound ? { bound } : {}) : { by: options.by, text };
  const parsed = NoteInput.safeParse(input);
  if (!parsed.success) throw new InvalidRequestError(formatZodError(parsed.error));
  return parsed.data;
}

/** The cancel signal's input, or InvalidRequestError; needs no server. */
export function cancelInput(options: CancelOptions): z.output<typeof CancelInput> {
  const parsed = CancelInput.safeParse({ by: options.by, reason: options.reason ?? '' });
  if (!parsed.success) throw new InvalidRequestError(formatZodError(parsed.error));
  return parsed.data;
}

/** What the addNote update takes: a signed note or an unsigned one with its author. */
export type NoteUpdateInput = z.output<typeof NoteInput>;
