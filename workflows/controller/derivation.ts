// The arithmetic of derived values: a tiny grammar of numbers, percentages, named operands,
// + - * / and parentheses, never `eval`. A domain's declared derivation (`old + rise`) is a
// formula over named operands; a formula the model writes (`1000 * 19.5% + 5.29`) has numbers
// only. Which operand is vouched for, and whether a derivation vouches at all, is
// derived-args.ts's business; this file only computes and checks the result.

/** One operand of a derivation: a number as written, or a named operand with its bound value. */
export interface Operand {
  text: string;
  value: number;
  /** A named operand (`rise`), bound by the proposal; a number is written in the formula. */
  named?: boolean;
}

export type DerivationVerdict = { ok: true; value: number; operands: Operand[] } | { ok: false; problem: string };

/** The most a derivation may hold: a formula a person can check at a glance. */
const MAX_TOKENS = 40;

/** A cent either way: derivations are of money and counts, not of measurements. */
export const DERIVATION_TOLERANCE = 0.005;

/**
 * Parses and evaluates `formula`; the operands come back so the caller can vouch for each. A name
 * (`rise`) is an operand only when `bindings` gives it a value.
 */
export function evaluateDerivation(formula: string, bindings: Readonly<Record<string, number>> = {}): DerivationVerdict {
  const tokens = formula.match(/\d+(?:\.\d+)?%?|[A-Za-z_][A-Za-z0-9_]*|[-+*/()]|\S/g) ?? [];
  if (tokens.length === 0) return { ok: false, problem: 'the derivation is empty' };
  if (tokens.length > MAX_TOKENS) return { ok: false, problem: `a derivation has at most ${MAX_TOKENS} parts` };
  const operands: Operand[] = [];
  let at = 0;
  const peek = () => tokens[at];
  const fail = (problem: string): never => {
    throw new DerivationProblem(problem);
  };

  // expression := term (('+'|'-') term)*; term := factor (('*'|'/') factor)*; factor := number | '(' expression ')'
  const factor = (): number => {
    const token = tokens[at++];
    if (token === '(') {
      const inner = expression();
      if (tokens[at++] !== ')') fail('a parenthesis is not closed');
      return inner;
    }
    if (token !== undefined && /^[A-Za-z_]/.test(token)) {
      const bound = Object.hasOwn(bindings, token) ? bindings[token] : undefined;
      if (bound === undefined) fail(`${JSON.stringify(token).slice(0, 40)} is not an operand of this derivation`);
      operands.push({ text: token, value: bound as number, named: true });
      return bound as number;
    }
    if (token === undefined || !/^\d/.test(token)) fail(`expected a number, found ${JSON.stringify(token ?? 'the end').slice(0, 20)}`);
    const text = token as string;
    const value = text.endsWith('%') ? Number(text.slice(0, -1)) / 100 : Number(text);
    operands.push({ text, value });
    return value;
  };
  const term = (): number => {
    let value = factor();
    while (peek() === '*' || peek() === '/') {
      const op = tokens[at++];
      const right = factor();
      if (op === '/' && right === 0) fail('division by zero');
      value = op === '*' ? value * right : value / right;
    }
    return value;
  };
  const expression = (): number => {
    let value = term();
    while (peek() === '+' || peek() === '-') value = tokens[at++] === '+' ? value + term() : value - term();
    return value;
  };

  try {
    const value = expression();
    if (at !== tokens.length) fail(`unexpected ${JSON.stringify(tokens[at]).slice(0, 20)}`);
    if (!Number.isFinite(value)) fail('the result is not a finite number');
    return { ok: true, value, operands };
  } catch (err) {
    if (err instanceof DerivationProblem) return { ok: false, problem: err.message };
    throw err;
  }
}

class DerivationProblem extends Error {}

/** The names a formula uses as operands (`old + rise` uses old and rise). */
export function operandNames(formula: string): string[] {
  return [...new Set(formula.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [])];
}

/**
 * A derivation of `value` checked: it parses, comes to `value` within a cent, and `vouch` names a
 * trusted source for every operand. The line says it all for a receipt or a card
 * (`1000 * 19.5% + 5.29 = 200.29; 1000: fact tx.3.amount (e2), 19.5%: signed note by ann, ...`).
 */
export function checkDerivation(
  formula: string,
  value: unknown,
  vouch: (operand: Operand) => string | undefined,
  bindings: Readonly<Record<string, number>> = {},
): { ok: true; line: string } | { ok: false; problem: string } {
  if (typeof value !== 'number') return { ok: false, problem: 'only a number can be derived' };
  const evaluated = evaluateDerivation(formula, bindings);
  if (!evaluated.ok) return { ok: false, problem: evaluated.problem };
  const result = Math.round(evaluated.value * 1e6) / 1e6;
  if (Math.abs(result - value) > DERIVATION_TOLERANCE) return { ok: false, problem: `${formula} comes to ${result}, not ${value}` };
  const sources: string[] = [];
  for (const operand of evaluated.operands) {
    const source = vouch(operand);
    if (!source) return { ok: false, problem: `${operand.text} traces to no trusted source` };
    sources.push(operand.named ? `${operand.text} = ${operand.value}: ${source}` : `${operand.text}: ${source}`);
  }
  return { ok: true, line: `${formula} = ${result}; ${[...new Set(sources)].join(', ')}`.slice(0, 400) };
}
