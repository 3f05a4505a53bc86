// A plan's computed argument: a number no source states, computed when its step runs. The
// planner cannot see every value (an extracted one never), so it writes the arithmetic, not the
// result: one of the tool's declared derivations with its operands bound to numbers it wrote or
// to references (`{"$derive": {"rule": "rise", "operands": {"old": {"$ref": "e3.scheduled.7.amount"}, "rise": {"$ref": "x1"}}}}`),
// or arithmetic over numbers it wrote (`{"$derive": "1000 * 19.5% + 5.99"}`). The engine computes
// the value and sends the call with the derivation beside it, so the gate judges it as it judges
// any proposal's (derived-args.ts): a declared rule over trusted operands vouches for the value;
// an operand a model extracted, or arithmetic the planner wrote, leaves it to a person, shown
// the line that computed it.
import type { ToolContract } from '../tool-contract.js';
import type { Derive } from './decision.js';
import { evaluateDerivation } from './derivation.js';

export type DeriveOperand = number | { $ref: string };
export type PlanDerive = { $derive: string | { rule: string; operands: Record<string, DeriveOperand> } };

export const isDerive = (v: unknown): v is PlanDerive =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && Object.hasOwn(v, '$derive');

type Resolved = { ok: true; value: unknown; source: string } | { ok: false; code: string };

/** The value of a `$derive` for argument `arg` of `contract`, and the derivation the call carries; `resolve` follows a `$ref`. */
export function resolveDerive(
  value: PlanDerive,
  contract: Pick<ToolContract, 'derivations'> | undefined,
  arg: string,
  resolve: (ref: string) => Resolved,
): { ok: true; value: number; derive: Derive } | { ok: false; code: string } {
  const spec = value.$derive;
  if (typeof spec === 'string') {
    const evaluated = evaluateDerivation(spec);
    return evaluated.ok ? { ok: true, value: rounded(evaluated.value), derive: spec } : { ok: false, code: 'bad_derivation' };
  }
  if (!spec || typeof spec !== 'object' || typeof spec.rule !== 'string' || !spec.operands || typeof spec.operands !== 'object') {
    return { ok: false, code: 'bad_derivation' };
  }
  const rules = contract?.derivations ?? {};
  const rule = Object.hasOwn(rules, spec.rule) ? rules[spec.rule] : undefined;
  if (!rule || rule.arg !== arg) return { ok: false, code: 'no_such_derivation' };
  const bindings: Record<string, number> = {};
  const operands: Record<string, number | string> = {};
  for (const [name, operand] of Object.entries(spec.operands)) {
    if (typeof operand === 'number') {
      bindings[name] = operand;
      operands[name] = operand;
      continue;
    }
    const ref = operand && typeof operand === 'object' && typeof operand.$ref === 'string' ? resolve(operand.$ref) : undefined;
    if (!ref) return { ok: false, code: 'bad_derivation' };
    if (!ref.ok) return ref;
    if (typeof ref.value !== 'number') return { ok: false, code: 'not_a_number' };
    bindings[name] = ref.value;
    operands[name] = ref.source; // the gate traces the operand to the evidence it names
  }
  const evaluated = evaluateDerivation(rule.formula, bindings);
  return evaluated.ok ? { ok: true, value: rounded(evaluated.value), derive: { rule: spec.rule, operands } } : { ok: false, code: 'bad_derivation' };
}

/** Money and counts: no more decimals than a derivation is checked to (derivation.ts). */
const rounded = (n: number) => Math.round(n * 1e6) / 1e6;
