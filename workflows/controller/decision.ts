// What the model may propose. Anything that does not parse is a rejected proposal, fed back
// to the model as an observation; it never reaches the world.
import { z } from 'zod';
import { workerScoped } from '../worker-scoped.js';

export const MAX_PARALLEL_CALLS = 4;

/** A fact key holds names as long as the source wrote them (a channel's, a hotel's): a reference may be long. */
const MAX_REFERENCE = 2_000;

/**
 * An operand of a declared derivation: a reference to a fact, `<evidence id>.<fact key>`
 * (`e3.scheduled.7.amount`), or a number, which is the model's word (controller/derived-args.ts).
 */
const DerivationOperand = workerScoped('decision.DerivationOperand', () =>
  z.union([
    z.number().finite(),
    z
      .string()
      .regex(/^e\d+\..+$/, 'a fact reference is <evidence id>.<fact key>')
      .max(MAX_REFERENCE),
  ]),
);

const SourceRef = workerScoped('decision.SourceRef', () => z.string().min(1).max(MAX_REFERENCE));

const Derive = workerScoped('decision.Derive', () =>
  z.union([z.string().min(1).max(200), z.strictObject({ rule: z.string().min(1).max(80), operands: z.record(z.string().min(1).max(40), DerivationOperand) })]),
);
export type Derive = z.infer<typeof Derive>;

export const ToolCall = workerScoped('decision.ToolCall', () =>
  z.strictObject({
    tool: z.string().min(1).max(80),
    /** Checked against the tool's own input schema by the gate, not here. */
    args: z.unknown(),
    /**
     * For a number no source states but trusted numbers compute (controller/derived-args.ts), by
     * top-level argument: one of the tool's declared derivations with its operands
     * (`{ amount: { rule: 'rent_rise', operands: { rent: 'e3.scheduled.7.amount', rise: 100 } } }`),
     * which vouches for the value when it holds and every operand cites a fact; or the model's own arithmetic
     * (`{ amount: "1000 * 19.5% + 5.29" }`), which is checked and shown to a person, never
     * taken on the model's word.
     */
    derive: z.record(z.string().min(1).max(80), Derive).optional(),
    /**
     * Where each top-level argument's value comes from, by reference (controller/cited-sources.ts):
     * a fact (`e3.scheduled.7.recipient`), a typed field of the signed request (`request.payee`),
     * `case`, or `model` (the model wrote it). A list argument cites one reference per value.
     * An argument with a kind is vouched for only by what it cites.
     */
    sources: z.record(z.string().min(1).max(80), z.union([SourceRef, z.array(SourceRef).min(1).max(20)])).optional(),
  }),
);

export const Decision = workerScoped('decision.Decision', () =>
  z.discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('call'),
      calls: z.array(ToolCall).min(1).max(MAX_PARALLEL_CALLS),
      reason: z.string().max(500).optional(),
    }),
    z.strictObject({
      type: z.literal('finish'),
      outcome: z.literal('resolved'),
      claim: z.unknown(),
      evidence: z.array(z.string()).min(1).max(50),
      summary: z.string().max(1_000).optional(),
    }),
    z.strictObject({ type: z.literal('escalate'), reason: z.string().min(1).max(500) }),
  ]),
);
export type Decision = z.infer<typeof Decision>;

export type ParsedDecision = { ok: true; decision: Decision } | { ok: false; problem: string };

/** Accepts a decision object or its JSON text; reports the first few problems in plain words. */
export function parseDecision(reply: unknown): ParsedDecision {
  let value = reply;
  if (typeof reply === 'string') {
    try {
      value = JSON.parse(reply);
    } catch {
      return { ok: false, problem: 'reply is not valid JSON' };
    }
  }
  const parsed = Decision.safeParse(value);
  if (parsed.success) return { ok: true, decision: parsed.data };
  // Adapters report replies they could not turn into a decision as {invalid: reason}.
  if (value && typeof value === 'object' && typeof (value as { invalid?: unknown }).invalid === 'string') {
    return { ok: false, problem: (value as { invalid: string }).invalid.slice(0, 300) };
  }
  return { ok: false, problem: describeIssues(parsed.error.issues) };
}

export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}

/** One line for receipts and the transcript. */
export function summarizeDecision(d: Decision): string {
  switch (d.type) {
    case 'call':
      return `call ${d.calls.map((c) => `${c.tool}(${compactJson(c.args)})${c.derive ? ` deriving ${compactJson(c.derive, 200)}` : ''}${c.sources ? ` citing ${compactJson(c.sources, 200)}` : ''}`).join(' + ')}`;
    case 'finish':
      return `finish resolved ${compactJson(d.claim)} citing ${d.evidence.join(',')}`;
    case 'escalate':
      return `escalate: ${d.reason}`;
  }
}

export function compactJson(value: unknown, max = 160): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'undefined';
  } catch {
    text = '[unserialisable]';
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
