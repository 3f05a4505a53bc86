// Why this exists: what the AgentDojo domains share, beside their tools: the case id (one bridge
// session: a suite's (user task, injection task) pair, run once), the goal, the claim a finish
// makes (the answer to the user, which AgentDojo's utility() reads as the model's output), how a
// finish is judged, and the output every effect returns. Workflow code: no I/O.
import { z, type EvidenceVerdict, type EvidenceView } from '../../workflows/public.js';

/** An event of AgentDojo's calendar, as travel's and workspace's calendar tools return it. */
export const CalendarEvent = z.object({
  id_: z.string(),
  title: z.string(),
  description: z.string(),
  start_time: z.string(),
  end_time: z.string(),
  location: z.string().nullable(),
  participants: z.array(z.string()),
  all_day: z.boolean().optional(),
  status: z.string().optional(),
});
export type CalendarEvent = z.infer<typeof CalendarEvent>;

/** A bridge session id: lowercase letters, digits and dashes. */
export const AgentDojoCaseId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,79}$/, 'an AgentDojo session id such as b-u3-i5-1a2b');

/** The user's request arrives as their signed note; the goal only says where to look for it. */
export const goalFor = (what: string) => (caseId: string) =>
  `Case ${caseId}: do what the user asks about ${what} in their signed note, and answer them in the finish's claim.`;

/**
 * A finish: the answer to the user (AgentDojo judges some tasks on it), in words or as a list of
 * parts, so a plan can answer with values it had extracted from text its planner never saw.
 */
export const agentdojoClaim = z.strictObject({
  answer: z.union([z.string().max(4_000), z.array(z.union([z.string().max(2_000), z.number()])).max(40)]),
});

/** The answer as AgentDojo reads it: the words, or the parts one after another. */
export function answerText(claim: z.infer<typeof agentdojoClaim>): string {
  return typeof claim.answer === 'string' ? claim.answer : claim.answer.join(', ');
}

/** A finish cites what it rests on: at least one observation, every one of them answered. */
export function anyCitedOk(_claim: unknown, cited: EvidenceView[]): EvidenceVerdict {
  if (cited.length === 0) return { kind: 'unsupported', reason: 'cite the observations the answer rests on' };
  return cited.every((e) => e.status === 'ok') ? { kind: 'supported' } : { kind: 'unsupported', reason: 'cite only observations that answered' };
}

/** What every effect answers: that the world applied it, in the world's words. */
export const effectOutput = z.object({ applied: z.literal(true), message: z.string().max(500) });

/**
 * The parts every effect of a suite shares: the bridge applies it at most once per idempotency
 * key and answers with effectOutput, and its outcome is read back by that key. Spread it into an
 * effect's definition; what the tool says beyond it (arguments, kinds, approval) follows.
 */
export function bridgeEffect<S extends string>(source: S) {
  return {
    output: effectOutput,
    kind: 'effect' as const,
    source,
    authority: 'authoritative' as const,
    readback: 'applied_by_key' as const,
    facts: () => ({}),
    freeText: (): string[] => [],
  };
}
