// Derived arguments: a number an effect needs that no source states, computed from numbers that
// trusted sources do state. Whose arithmetic it is decides what it is worth:
//
// - A derivation the tool declares (ToolContract.derivations: `rent_rise = rent + rise`) is the
//   domain's rule. The proposal picks it and binds each operand to a trusted fact of the
//   argument's kind, by reference (`e3.scheduled.7.amount`), or to a number a person's signed
//   words state. When it comes to the argument within a cent, it vouches for the argument.
// - Arithmetic the model writes itself (`"98.70 * 100"`) is the model's formula, even when each
//   operand is trusted: it is checked and shown, with each operand's source, and a person decides.
//
// - A declared derivation with an operand a model with no tools extracted from text (shape plan:
//   plan-derive.ts) holds or not like any other, but vouches for nothing: a person decides, shown
//   the line, with that operand's origin.
//
// A derivation that does not hold vouches for nothing, and its argument is judged as any other.
import type { DerivationRule, ToolContract } from '../contract.js';
import type { Derive } from './decision.js';
import { checkDerivation, operandNames, type Operand } from './derivation.js';
import { spelled, type TrustedFact } from './trusted-facts.js';
import { factReference } from './cited-sources.js';

export interface DerivedArgs {
  /** Every derivation that holds, by argument: its checked line, for the call's record and card. */
  lines: Record<string, string>;
  /** The arguments a declared derivation vouches for. */
  vouched: Set<string>;
  /** The arguments only the model's own arithmetic computes: held, but a person decides. */
  formulas: Set<string>;
  /** Of those, the ones a declared derivation computes from an extracted value (the rest: the model's own arithmetic). */
  extracted: Set<string>;
  problems: string[];
}

type SignedNote = { by: string; text: string };

/** An operand no trusted source states but a model with no tools extracted (shape plan), by reference; undefined for any other. */
export type ExtractedOperand = (reference: string) => { value: number; source: string } | undefined;

export function checkDerived(
  facts: readonly TrustedFact[],
  contract: ToolContract,
  args: unknown,
  derive: Record<string, Derive>,
  notes: readonly SignedNote[],
  extracted: ExtractedOperand = () => undefined,
): DerivedArgs {
  const out: DerivedArgs = { lines: {}, vouched: new Set(), formulas: new Set(), extracted: new Set(), problems: [] };
  const values = args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  const kinds = (contract.argKinds ?? {}) as Record<string, string | undefined>;
  for (const [name, entry] of Object.entries(derive)) {
    if (!(name in values)) {
      out.problems.push(`the derivation names ${JSON.stringify(name).slice(0, 40)}, which is not an argument of the call`);
      continue;
    }
    const kind = kinds[name];
    const checked =
      typeof entry === 'string'
        ? checkDerivation(entry, values[name], (operand) => operandSource(operand, facts, notes, kind) ?? 'no trusted source')
        : checkRule(contract, name, entry, values[name], facts, notes, kind, extracted);
    if (!checked.ok) {
      out.problems.push(`the derivation of ${name} does not hold: ${checked.problem}`);
      continue;
    }
    out.lines[name] = typeof entry === 'string' ? `the model's own arithmetic: ${checked.line}` : checked.line;
    const untrusted = typeof entry !== 'string' && 'fromExtracted' in checked;
    (typeof entry === 'string' || untrusted ? out.formulas : out.vouched).add(name);
    if (untrusted) out.extracted.add(name);
  }
  return out;
}

/** A declared derivation, its operands bound by the proposal and each traced. */
function checkRule(
  contract: ToolContract,
  name: string,
  entry: Exclude<Derive, string>,
  value: unknown,
  facts: readonly TrustedFact[],
  notes: readonly SignedNote[],
  kind: string | undefined,
  extracted: ExtractedOperand,
): { ok: true; line: string; fromExtracted?: true } | { ok: false; problem: string } {
  const rules: Record<string, DerivationRule> = contract.derivations ?? {};
  const rule = Object.hasOwn(rules, entry.rule) ? rules[entry.rule] : undefined;
  const declared = Object.keys(rules);
  if (!rule) {
    const known = declared.length ? `it declares ${declared.join(', ')}` : 'it declares none';
    return { ok: false, problem: `${contract.name} declares no derivation ${JSON.stringify(entry.rule).slice(0, 40)} (${known})` };
  }
  if (rule.arg !== name) return { ok: false, problem: `${entry.rule} computes ${rule.arg}, not ${name}` };
  const extra = Object.keys(entry.operands).filter((o) => !operandNames(rule.formula).includes(o));
  if (extra.length) return { ok: false, problem: `${entry.rule} (${rule.formula}) has no operand ${extra.join(', ').slice(0, 80)}` };
  const bindings: Record<string, number> = {};
  const sources = new Map<string, string>();
  let fromExtracted = false;
  for (const [operand, bound] of Object.entries(entry.operands)) {
    let traced = typeof bound === 'number' ? stated(bound, notes) : referenced(bound, facts, kind);
    const taken = !traced.ok && typeof bound === 'string' ? extracted(bound) : undefined;
    if (taken) {
      traced = { ok: true, value: taken.value, source: taken.source };
      fromExtracted = true;
    }
    if (!traced.ok) return { ok: false, problem: `operand ${operand}: ${traced.problem}` };
    bindings[operand] = traced.value;
    sources.set(operand, traced.source);
  }
  const checked = checkDerivation(rule.formula, value, (operand) => (operand.named ? sources.get(operand.text) : 'the domain'), bindings);
  if (!checked.ok) return checked;
  return { ok: true, line: `${entry.rule} (${rule.describe}): ${checked.line}`, ...(fromExtracted ? { fromExtracted: true as const } : {}) };
}

type Traced = { ok: true; value: number; source: string } | { ok: false; problem: string };

/** A fact cited by reference: trusted, numeric, and (when the argument has a kind) of that kind. */
function referenced(reference: string, facts: readonly TrustedFact[], kind: string | undefined): Traced {
  const { evidenceId, key } = factReference(reference) ?? { evidenceId: '', key: '' };
  const fact = facts.find((f) => f.evidenceId === evidenceId && f.key === key);
  if (!fact) return { ok: false, problem: `${reference.slice(0, 80)} is no fresh authoritative fact of this run` };
  if (typeof fact.value !== 'number') return { ok: false, problem: `${reference.slice(0, 80)} is not a number` };
  if (kind !== undefined && fact.kind !== kind) return { ok: false, problem: `${reference.slice(0, 80)} is not a fact of kind ${kind} its read vouches for` };
  return { ok: true, value: fact.value, source: `fact ${key} (${evidenceId})` };
}

/** A number a person's signed words state as a whole (`100.00` states 100; `1000` does not). */
function stated(value: number, notes: readonly SignedNote[]): Traced {
  const note = notes.find((n) => statesNumber(n.text, value));
  return note ? { ok: true, value, source: `signed note by ${note.by}` } : { ok: false, problem: `no signed note states ${value}` };
}

/**
 * Where a number of the model's own arithmetic came from, for the person who decides: a signed
 * note that says it, or a trusted fact (of the argument's kind, when it has one) that holds it.
 * A share (`19.5%`) is a person's word, never a record's.
 */
function operandSource(operand: Operand, facts: readonly TrustedFact[], notes: readonly SignedNote[], kind: string | undefined): string | undefined {
  const said = notes.find((n) => statesNumber(n.text, Number(operand.text.replace(/%$/, ''))));
  if (said) return `signed note by ${said.by}`;
  if (operand.text.endsWith('%')) return undefined;
  const fact = facts.find((f) => spelled(f.value) === spelled(operand.value) && (kind === undefined || f.kind === kind));
  return fact && `fact ${fact.key} (${fact.evidenceId})`;
}

/** Whether `text` writes `value` as a number of its own, however many decimals (not inside a longer number). */
function statesNumber(text: string, value: number): boolean {
  return numbersStated(text).includes(value);
}

/** The numbers a text states as numbers of their own: 24 in "24 days", not in "2024-05-15" or "v24". */
export function numbersStated(text: string): number[] {
  return (text.match(/(?<![\w.])\d+(?:\.\d+)?(?![\w]|\.\d)/g) ?? []).map(Number);
}
