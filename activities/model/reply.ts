// What the model said, turned into a Decision-shaped object and nothing more. Provider-neutral:
// an adapter reduces its wire reply to a `ModelTurn` (function calls, text, why it stopped) and
// this file does the rest. Judging the result is the controller's job, so anything odd (bad
// JSON, unknown function, plain text) becomes a reply the controller rejects and explains,
// never an exception that would crash or retry the run.
import { splitClaims } from './claims.js';
import { argumentsFor, ESCALATE_FUNCTION, FINISH_FUNCTION, isObject, type DomainFunctions, type JsonObject } from './functions.js';
import { EXTRACTED_FUNCTION, PLAN_FUNCTION } from './plan-functions.js';
import { callsFromText } from './text-calls.js';

export interface ModelTurn {
  /** Native function calls, in order; arguments as the wire carried them (usually a JSON string). */
  calls: { name: string; arguments: string | JsonObject }[];
  /** The reply's text, all parts joined. */
  text: string;
  /** Why the model stopped, when it was something other than a normal end. */
  stopped?: 'length' | 'content-filter' | 'refusal';
  refusal?: string;
}

export function decisionFrom(turn: ModelTurn, functions: DomainFunctions): unknown {
  const calls: { name: string; args: JsonObject; sources?: JsonObject; derive?: JsonObject }[] = [];
  if (turn.calls.length === 0) {
    // Many local servers write the call into the content instead; accept it only if it names
    // declared functions with argument objects.
    const written = turn.text ? callsFromText(turn.text, new Set(functions.byName.keys())) : undefined;
    if (!written) {
      // A refusal arrives as its own field, or (through the AI SDK) as text with a content-filter stop.
      const refusal = turn.refusal ?? (turn.stopped === 'refusal' || turn.stopped === 'content-filter' ? turn.text : undefined);
      if (refusal) return invalid(`no function call: the model refused: ${clip(refusal)}`);
      if (turn.stopped === 'content-filter') return invalid('no function call: the provider filtered the reply');
      if (turn.stopped === 'length') return invalid('no function call: the reply hit the token limit');
      return invalid(`no function call: the model replied with text: ${clip(turn.text || '(empty)')}`);
    }
    for (const call of written) {
      const spec = functions.byName.get(call.name);
      if (spec) calls.push({ name: call.name, ...splitClaims(spec.loose, argumentsFor(spec, call.args)) });
    }
  }

  for (const call of turn.calls) {
    const spec = functions.byName.get(call.name);
    if (!spec) {
      return invalid(`unknown function ${clip(JSON.stringify(call.name), 80)}; available: ${[...functions.byName.keys()].join(', ')}`);
    }
    const args = typeof call.arguments === 'string' ? parseArguments(call.arguments) : call.arguments;
    if (typeof args === 'string') return invalid(`arguments of ${call.name} ${args}`);
    calls.push({ name: call.name, ...splitClaims(spec.loose, argumentsFor(spec, args)) });
  }

  const control = calls.find((c) => CONTROL.has(c.name));
  if (control && calls.length > 1) return invalid(`${control.name} must be the only function call in its reply`);
  if (control?.name === FINISH_FUNCTION) {
    const { claim, evidence, summary } = control.args;
    return { type: 'finish', outcome: 'resolved', claim, evidence, ...(summary !== undefined ? { summary } : {}) };
  }
  if (control?.name === ESCALATE_FUNCTION) return { type: 'escalate', reason: control.args.reason };
  // Shape plan's replies, in the shape the controller reads them (workflows/controller/plan-replies.ts).
  if (control?.name === PLAN_FUNCTION) return { type: 'plan', ...control.args };
  if (control?.name === EXTRACTED_FUNCTION) return { type: 'extracted', value: control.args.value ?? null };
  // How many calls may run together, and which, is the gate's decision, not ours.
  return {
    type: 'call',
    calls: calls.map(({ name, args, sources, derive }) => ({ tool: name, args, ...(sources ? { sources } : {}), ...(derive ? { derive } : {}) })),
  };
}

/** The functions that must be the only call in their reply. */
const CONTROL = new Set([FINISH_FUNCTION, ESCALATE_FUNCTION, PLAN_FUNCTION, EXTRACTED_FUNCTION]);

/** The parsed arguments object, or what is wrong with them. */
function parseArguments(text: string): JsonObject | string {
  // Some local servers send "" for a call without arguments.
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `are not valid JSON: ${clip(text, 120)}`;
  }
  return isObject(parsed) ? parsed : `must be a JSON object, got ${clip(text, 120)}`;
}

/** Not a Decision, so the controller rejects it; the reason is for whoever reads the receipt. */
export function invalid(reason: string): { invalid: string } {
  return { invalid: reason };
}

export function clip(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
