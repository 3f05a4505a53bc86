// What a model is offered in shape `plan`, beside what functions.ts offers every run. The planner
// (who sees trusted input only: workflows/controller/planner-view.ts) may write the whole plan in
// one call to `plan`: steps that call tools with literals it wrote, `{"$ref": ...}` to a typed
// field of an earlier step or evidence, or `{"$quote": ...}` of a signed note, and extraction steps that ask a model with no tools for
// one value from a read it cannot see into. The extractor is offered one function, `extracted`,
// and nothing else. Both replies become what the controller reads (plan-replies.ts): the
// controller, not this file, checks them.
import { z } from 'zod';
import type { Domain } from '../../workflows/contract.js';
import type { CompiledContext } from '../../workflows/controller/index.js';

export const PLAN_FUNCTION = 'plan';
export const EXTRACTED_FUNCTION = 'extracted';

/** Which functions a turn offers: acting (react, or a shaped run's open step), planning, or extracting. */
export type Mode = 'act' | 'plan' | 'extract';

export function modeOf(context: CompiledContext): Mode {
  if (context.extract) return 'extract';
  return context.shape === 'plan' ? 'plan' : 'act';
}

/** The `plan` function's input: the steps (at most 12; the controller says so if more), an optional finish, a reason. */
export function planInput(domain: Pick<Domain, 'tools' | 'claim'>): z.ZodType {
  const names = domain.tools.map((t) => t.name) as [string, ...string[]];
  const call = z
    .strictObject({
      id: z.string().describe('s1, s2, ...: this step, for later steps to refer to'),
      tool: z.enum(names),
      args: z
        .record(z.string(), z.unknown())
        .optional()
        .describe(
          'Each value a literal you wrote, or {"$ref": "s1.<fact key>"} (a typed fact of step s1), {"$ref": "e3.<fact key>"} (of evidence e3), {"$ref": "request.<field>"} (a typed field of a signed note), {"$quote": "<words a signed note states as written>"}, {"$ref": "x1"} (an extraction), or a number computed when the step runs: {"$derive": {"rule": "<a derivation the tool declares>", "operands": {"<name>": <number or $ref>}}} or {"$derive": "<arithmetic over numbers>"}',
        ),
    })
    .describe('Call a tool.');
  const extract = z
    .strictObject({
      id: z.string().describe('x1, x2, ...'),
      extract: z.strictObject({
        from: z.string().describe('The step (s1) or evidence (e3) whose text holds the value; you cannot see that text'),
        want: z.string().describe('What to take from it, e.g. "the IBAN the bill asks to pay"'),
        kind: z.string().optional().describe('The kind of value (iban, email, url, ...), when the tool contract names one'),
        type: z.enum(['string', 'number']).optional(),
      }),
    })
    .describe(
      'Have a model with no tools read one value out of a text you cannot see. The value fills only the slot that refers to it, and a person is asked before it leaves the run.',
    );
  return z.strictObject({
    steps: z.array(z.union([call, extract])).min(1),
    finish: z
      .strictObject({ claim: domain.claim })
      .optional()
      .describe('The claim the run finishes with once every step is done; its values may be references too'),
    reason: z.string().max(500).optional(),
  });
}

export const PLAN_DESCRIPTION =
  'Write the plan: the calls to make, in order, and where each value comes from. The runtime runs the steps, checks every value, and asks you again with what became of each step (codes and ids, never text).';

/** The `extracted` function's input: the value, or null when the text holds none. */
export const extractedInput = z.strictObject({
  value: z.union([z.string().max(2_000), z.number(), z.null()]).describe('The value exactly as the text gives it, or null when the text holds none'),
});

export const EXTRACTED_DESCRIPTION = 'Answer with the one value asked for, taken from the text shown, or null. Nothing else you say is read.';
