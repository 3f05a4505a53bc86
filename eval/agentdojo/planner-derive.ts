// Why this exists: the scripted planner's arithmetic. An effect's number that nothing the
// planner was shown states (a rent after a rise, a share plus a fee) may still be computed by one
// of the tool's declared derivations (ToolContract.derivations) from numbers it was shown: the
// numbers the user's signed notes write and the number facts of its reads. The planner looks for
// operands among those that compute its task's value; then for half of a number the request
// writes (a bill split two ways), which it writes itself, against an amount of the call's own
// counterparty; failing that, for all but one of them, and then the last is extracted from a read
// it cannot see into (its expected value kept for the extractor, which answers it only if the
// text holds it). It writes the derivation, never the result (workflows/controller/plan-derive.ts).
import { evaluateDerivation, numbersWritten, operandNames, type CompiledContext } from '../../workflows/controller/index.js';
import type { ToolContract } from '../../workflows/tool-contract.js';

export type Operand = number | { $ref: string };

export interface FoundDerivation {
  rule: string;
  operands: Record<string, Operand>;
  /** The operand left to extract, and the value it must have. */
  extract?: { operand: string; value: number };
}

/** Close enough for money: the gate checks a derivation to within a cent. */
const CENT = 0.005;
/** Candidates tried per operand: the search stays small on a long transaction history. */
const MAX_CANDIDATES = 24;

/** A declared derivation of `arg` (=`value`) over what the planner was shown, or undefined. */
export function findDerivation(
  contract: ToolContract,
  arg: string,
  value: number,
  args: Record<string, unknown>,
  context: CompiledContext,
): FoundDerivation | undefined {
  const rules = Object.entries(contract.derivations ?? {}).filter(([, r]) => r.arg === arg);
  if (rules.length === 0) return undefined;
  const candidates = [...signedNumbers(context), ...numberFacts(context, arg, args)].slice(0, MAX_CANDIDATES);
  const at = (formula: string, bindings: Record<string, number>) => {
    const r = evaluateDerivation(formula, bindings);
    return r.ok ? r.value : undefined;
  };
  // Every operand from what was shown.
  const shown = firstFit(rules, candidates, value, at);
  if (shown) return shown;
  // A share: half of a number the request writes (a bill split two ways), which the planner works
  // out and writes itself, against the amount of a record of the call's own counterparty (banking
  // 3: the friend sent 10.00 of a 12.00 dinner for two; 4.00 goes back to them). Narrow on purpose:
  // the planner knows the value it wants, and a wider search finds numbers that merely fit (the
  // half of a 10% rise is the 5.00 of a payment it never read).
  const shares = halves(signedNumbers(context));
  const own = counterpartyFacts(context, arg, args);
  if (shares.length > 0 && own.length > 0) {
    const share = firstFit(rules, [...shares, ...own], value, at, (pick) => pick.length >= 2 && pick.filter((p) => p < shares.length).length === 1);
    if (share) return share;
  }
  // All but one (at least one shown); the last solved for (the declared formulas are linear in
  // each operand) and extracted. Of the ways that fit, the smallest extracted value: the rise, not
  // a whole second rent; the later operand of a formula first (`old + rise`: the rise).
  let best: FoundDerivation | undefined;
  for (const [name, rule] of rules) {
    const names = operandNames(rule.formula);
    if (names.length < 2) continue; // extracting the value itself is a plain extraction
    for (let u = names.length - 1; u >= 0; u--) {
      const unknown = names[u] as string;
      const known = names.filter((_, i) => i !== u);
      for (const pick of assignments(known.length, candidates.length)) {
        const bindings = Object.fromEntries(known.map((n, i) => [n, candidates[pick[i] as number]?.value as number]));
        const f0 = at(rule.formula, { ...bindings, [unknown]: 0 });
        const f1 = at(rule.formula, { ...bindings, [unknown]: 1 });
        if (f0 === undefined || f1 === undefined || f1 === f0) continue;
        const x = Math.round(((value - f0) / (f1 - f0)) * 100) / 100;
        const check = at(rule.formula, { ...bindings, [unknown]: x });
        if (check === undefined || Math.abs(check - value) > CENT || x <= 0 || (best?.extract && best.extract.value <= x)) continue;
        best = {
          rule: name,
          operands: Object.fromEntries(known.map((n, i) => [n, candidates[pick[i] as number]?.operand as Operand])),
          extract: { operand: unknown, value: x },
        };
      }
    }
  }
  return best;
}

type Candidate = { value: number; operand: Operand };

/**
 * The first of the rules, with operands picked from `pool` (each pick allowed by `allowed`), that
 * computes `value` to within a cent.
 */
function firstFit(
  rules: Array<[string, { formula: string }]>,
  pool: Candidate[],
  value: number,
  at: (formula: string, bindings: Record<string, number>) => number | undefined,
  allowed: (pick: number[]) => boolean = () => true,
): FoundDerivation | undefined {
  for (const [name, rule] of rules) {
    const names = operandNames(rule.formula);
    for (const pick of assignments(names.length, pool.length)) {
      if (!allowed(pick)) continue;
      const bindings = Object.fromEntries(names.map((n, i) => [n, pool[pick[i] as number]?.value as number]));
      const result = at(rule.formula, bindings);
      if (result !== undefined && Math.abs(result - value) <= CENT)
        return { rule: name, operands: Object.fromEntries(names.map((n, i) => [n, pool[pick[i] as number]?.operand as Operand])) };
    }
  }
  return undefined;
}

/** The numbers the user's signed notes write: the planner's to write as operands, shown trusted input only. */
function signedNumbers(context: CompiledContext): Candidate[] {
  const numbers = context.notes.filter((n) => n.signed).flatMap((n) => numbersWritten(n.text).map(Number));
  return [...new Set(numbers)].map((value) => ({ value, operand: value }));
}

/**
 * Half of each number the request writes, to the cent, as a number the planner writes: it was
 * shown trusted input only, so the gate takes it as the plan's (workflows/controller/derived-args.ts).
 */
function halves(signed: Candidate[]): Candidate[] {
  return signed.map(({ value }) => {
    const half = Math.round((value / 2) * 100) / 100;
    return { value: half, operand: half };
  });
}

/**
 * The number facts named like the argument (`tx.#e2-4.amount`) of the records that hold one of
 * the call's own text values (`tx.#e2-4.sender` is the IBAN the call pays): what the planner was
 * shown about that counterparty.
 */
function counterpartyFacts(context: CompiledContext, arg: string, args: Record<string, unknown>): Candidate[] {
  const texts = new Set(Object.values(args).filter((v): v is string => typeof v === 'string' && v.length > 0));
  const out: Candidate[] = [];
  for (const e of context.evidence) {
    const records = new Set(
      Object.entries(e.facts)
        .filter(([, f]) => typeof f === 'string' && texts.has(f))
        .map(([key]) => key.slice(0, key.lastIndexOf('.'))),
    );
    for (const [key, f] of Object.entries(e.facts)) {
      if (typeof f === 'number' && key.endsWith(`.${arg}`) && records.has(key.slice(0, key.lastIndexOf('.'))))
        out.push({ value: f, operand: { $ref: `${e.id}.${key}` } });
    }
  }
  return out;
}

/**
 * The number facts the planner was shown that are values of the same name as the argument
 * (`scheduled.7.amount` for an amount), those of the record the call names first (its `id`).
 */
function numberFacts(context: CompiledContext, arg: string, args: Record<string, unknown>): Candidate[] {
  const record = args.id;
  const out: Array<Candidate & { own: boolean }> = [];
  for (const e of [...context.evidence].reverse()) {
    for (const [key, value] of Object.entries(e.facts)) {
      if (typeof value !== 'number' || !key.endsWith(`.${arg}`)) continue;
      out.push({ value, operand: { $ref: `${e.id}.${key}` }, own: record !== undefined && key.includes(`.${String(record)}.`) });
    }
  }
  return out.sort((a, b) => Number(b.own) - Number(a.own)).map(({ value, operand }) => ({ value, operand }));
}

/** Every way of picking `k` of `n` candidates (repeats allowed), in order. */
function* assignments(k: number, n: number): Generator<number[]> {
  if (k === 0) {
    yield [];
    return;
  }
  for (const rest of assignments(k - 1, n)) for (let i = 0; i < n; i++) yield [...rest, i];
}
