// Derived arguments: a number an effect needs that no source states, computed from numbers that
// trusted sources do state. Whose arithmetic it is, and who bound its operands, decide what it is
// worth:
//
// - A derivation the tool declares (ToolContract.derivations: `rent_rise = rent + rise`) is the
//   domain's rule. The proposal picks it and binds each operand to a trusted fact of the
//   argument's kind, by reference (`e3.scheduled.7.amount`). When it comes to the argument within
//   a cent, it vouches for the argument.
// - An operand written as a number is whoever wrote it's word. In shape `plan` that is the
//   planner, shown trusted input only, so the number is the plan's (as a literal argument is:
//   cited-sources.ts) unless the planner was shown it as a fact, which it must then cite. Anywhere
//   else the model wrote it after reading untrusted text: that a signed note writes the same
//   number says nothing about which operand it is ("19.5% plus a fee of 5.29" bound the other way
//   round sends other money), so the line is checked and shown, and a person decides.
// - Arithmetic the model writes itself (`"98.70 * 100"`) is the model's formula, even when each
//   operand is trusted: it is checked and shown, with what each number equals, and a person decides.
// - A declared derivation with an operand a model with no tools extracted from text (shape plan:
//   plan-derive.ts) holds or not like any other, but vouches for nothing: a person decides, shown
//   the line, with that operand's origin.
//
// A derivation that does not hold vouches for nothing, and its argument is judged as any other.
import type { DerivationRule, ToolContract } from '../tool-contract.js';
import type { Derive } from './decision.js';
import { checkDerivation, operandNames, type Operand } from './derivation.js';
import { factReference, spelled, type TrustedFact } from './trusted-facts.js';

export interface DerivedArgs {
  /** Every derivation that holds, by argument: its checked line, for the call's record and card. */
  lines: Readonly<Record<string, string>>;
  /** The arguments a declared derivation vouches for. */
  vouched: ReadonlySet<string>;
  /** The arguments only the model's own arithmetic computes: held, but a person decides. */
  formulas: ReadonlySet<string>;
  /** Of those, why a person decides, by argument: the model's own arithmetic, or an operand nothing trusted bound. */
  unvouched: Readonly<Record<string, Unvouched>>;
  problems: readonly string[];
}

/** What a call with no derivation has: nothing derived, nothing to check. */
export const NO_DERIVATIONS: DerivedArgs = { lines: {}, vouched: new Set(), formulas: new Set(), unvouched: {}, problems: [] };

type SignedNote = { by: string; text: string };

/**
 * Shape plan: whether a number the planner wrote is the plan's, as cited-sources.ts judges a
 * literal of a plan (not if the planner was shown it as a fact), with its label or why not.
 */
export type PlannedNumber = (value: number) => { ok: true; label: string } | { ok: false; problem: string };

/** An operand no trusted source states but a model with no tools extracted (shape plan), by reference; undefined for any other. */
export type ExtractedOperand = (reference: string) => { value: number; source: string } | undefined;

export function checkDerived(
  facts: readonly TrustedFact[],
  contract: ToolContract,
  args: unknown,
  derive: Record<string, Derive>,
  notes: readonly SignedNote[],
  planned: PlannedNumber | undefined,
  extracted: ExtractedOperand = () => undefined,
): DerivedArgs {
  const out = {
    lines: {} as Record<string, string>,
    vouched: new Set<string>(),
    formulas: new Set<string>(),
    unvouched: {} as Record<string, Unvouched>,
    problems: [] as string[],
  };
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
        ? ownArithmetic(entry, values[name], facts, notes, kind)
        : checkRule(contract, name, entry, values[name], facts, notes, kind, planned, extracted);
    if (!checked.ok) {
      out.problems.push(`the derivation of ${name} does not hold: ${checked.problem}`);
      continue;
    }
    out.lines[name] = checked.line;
    if (!checked.unvouched) out.vouched.add(name);
    else {
      out.formulas.add(name);
      out.unvouched[name] = checked.unvouched;
    }
  }
  return out;
}

/** Why a derivation that holds vouches for nothing: the model's own arithmetic, an operand a model extracted from text, or a number the model bound. */
type Unvouched = 'own' | 'extracted' | 'model';

type Checked = { ok: true; line: string; unvouched?: Unvouched } | { ok: false; problem: string };

/** Arithmetic the model wrote: checked, each number shown with what it equals, and vouched for by nothing. */
function ownArithmetic(formula: string, value: unknown, facts: readonly TrustedFact[], notes: readonly SignedNote[], kind: string | undefined): Checked {
  const checked = checkDerivation(formula, value, (operand) => operandSource(operand, facts, notes, kind) ?? 'nothing trusted equals it');
  return checked.ok ? { ok: true, line: `the model's own arithmetic: ${checked.line}`, unvouched: 'own' } : checked;
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
  planned: PlannedNumber | undefined,
  extracted: ExtractedOperand,
): Checked {
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
  let unvouched: Unvouched | undefined;
  for (const [operand, bound] of Object.entries(entry.operands)) {
    let traced = typeof bound === 'number' ? written(bound, facts, notes, planned) : referenced(bound, facts, kind);
    const taken = !traced.ok && typeof bound === 'string' ? extracted(bound) : undefined;
    if (taken) traced = { ok: true, value: taken.value, source: taken.source, unvouched: 'extracted' };
    if (!traced.ok) return { ok: false, problem: `operand ${operand}: ${traced.problem}` };
    bindings[operand] = traced.value;
    sources.set(operand, traced.source);
    if (traced.unvouched && unvouched !== 'extracted') unvouched = traced.unvouched;
  }
  const checked = checkDerivation(rule.formula, value, (operand) => (operand.named ? sources.get(operand.text) : 'the domain'), bindings);
  if (!checked.ok) return checked;
  return { ok: true, line: `${entry.rule} (${rule.describe}): ${checked.line}`, ...(unvouched ? { unvouched } : {}) };
}

type Traced = { ok: true; value: number; source: string; unvouched?: Unvouched } | { ok: false; problem: string };

/** A fact cited by reference: trusted, numeric, and (when the argument has a kind) of that kind. */
function referenced(reference: string, facts: readonly TrustedFact[], kind: string | undefined): Traced {
  const { evidenceId, key } = factReference(reference) ?? { evidenceId: '', key: '' };
  const fact = facts.find((f) => f.evidenceId === evidenceId && f.key === key);
  if (!fact) return { ok: false, problem: `${reference.slice(0, 80)} is no fresh authoritative fact of this run` };
  if (typeof fact.value !== 'number') return { ok: false, problem: `${reference.slice(0, 80)} is not a number` };
  if (kind !== undefined && fact.kind !== kind) return { ok: false, problem: `${reference.slice(0, 80)} is not a fact of kind ${kind} its read vouches for` };
  return { ok: true, value: fact.value, source: `fact ${key} (${evidenceId})` };
}

/**
 * A number written as an operand. In shape plan, the planner's (unless it was shown the number as
 * a fact: then it cites the fact); anywhere else, the model's, bound by nothing trusted.
 */
function written(value: number, facts: readonly TrustedFact[], notes: readonly SignedNote[], planned: PlannedNumber | undefined): Traced {
  if (planned) {
    const cited = planned(value);
    return cited.ok ? { ok: true, value, source: cited.label } : { ok: false, problem: cited.problem };
  }
  const equal = operandSource({ text: String(value), value }, facts, notes, undefined);
  return { ok: true, value, source: `the model's${equal ? ` (${equal})` : ''}`, unvouched: 'model' };
}

/**
 * What a number of the model's own equals, for the person who decides: a number a signed note
 * writes (shown as written: 007 is not quietly 7), or a trusted fact (of the argument's kind, when it has one).
 * Equal is not vouched for: the person decides. A share (`19.5%`) is a person's word, never a record's.
 */
function operandSource(operand: Operand, facts: readonly TrustedFact[], notes: readonly SignedNote[], kind: string | undefined): string | undefined {
  const number = Number(operand.text.replace(/%$/, ''));
  for (const note of notes) {
    const written = numbersWritten(note.text).find((w) => Number(w) === number);
    if (written !== undefined) return `signed note by ${note.by} has ${written}`;
  }
  if (operand.text.endsWith('%')) return undefined;
  const fact = facts.find((f) => spelled(f.value) === spelled(operand.value) && (kind === undefined || f.kind === kind));
  return fact && `equals fact ${fact.key} (${fact.evidenceId})`;
}

/** The numbers a text writes as numbers of their own, as written: "24" in "24 days", none in "2024-05-15" or "v24". */
export function numbersWritten(text: string): string[] {
  return text.match(/(?<![\w.])\d+(?:\.\d+)?(?![\w]|\.\d)/g) ?? [];
}
