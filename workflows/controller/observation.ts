// The observation adapter: raw tool output becomes typed evidence with provenance. Only scalar
// facts the contract names enter control state; free text is withheld and, at most, shown to
// the model as quoted data. A timeout is an observation too, never "no result".
import type { Facts, ToolContract } from '../tool-contract.js';
import { describeIssues } from './decision.js';
import type { ToolResult } from './events.js';
import type { Evidence } from './state.js';

/** How much quoted text one observation may carry into the model's context. */
export const MAX_QUOTED_CHARS = 1_000;

/**
 * `asked`: the subject the call was about, when the run checks that the answer is about it too
 * (for contracts that declare `answers`).
 */
export function adaptResult(contract: ToolContract, result: ToolResult, evidenceId: string, asked?: string): Evidence {
  const provenance = {
    id: evidenceId,
    callId: result.callId,
    tool: contract.name,
    source: contract.source,
    authority: contract.authority,
    observedAt: result.finishedAt,
    maxAgeMs: contract.maxAgeMs,
  };
  // An observation with no facts: the call failed, or its output told us nothing we may act on.
  const failed = (status: Evidence['status'], error: { class: string; message: string }): Evidence => ({
    ...provenance,
    effectiveAt: result.finishedAt,
    fresh: false,
    status,
    facts: {},
    error,
    quoted: [],
    textWithheld: false,
  });
  if (result.status !== 'ok') return failed(result.status, { class: result.errorClass, message: result.message.slice(0, 300) });

  const parsed = contract.output.safeParse(result.output);
  // A tool that breaks its own contract tells us nothing we may act on.
  if (!parsed.success) return failed('error', { class: 'bad_output', message: describeIssues(parsed.error.issues) });

  const answered = asked !== undefined ? answeredSubject(contract, parsed.data) : undefined;
  if (answered !== undefined && answered !== asked) {
    return failed('error', { class: 'bad_output', message: `asked about ${asked}, the answer is about ${answered.slice(0, 100)}` });
  }

  let read: { effectiveAt: string | undefined; text: string[]; facts: Facts };
  try {
    read = { effectiveAt: contract.effectiveAt(parsed.data), text: contract.freeText(parsed.data), facts: contract.facts(parsed.data) };
  } catch (err) {
    // A contract callback that throws is the contract's bug; the output tells us nothing safe.
    const why = err instanceof Error ? err.message.slice(0, 200) : 'error';
    return failed('error', { class: 'bad_output', message: `the contract of ${contract.name} could not read this output: ${why}` });
  }
  // The answer says when it is as of, but never later than the engine received it: freshness is
  // counted from this time (subject.ts), and a tool that dated its answer ahead (a clock far off,
  // or an answer written to stay trusted) would keep its facts fresh, and vouching, for as long.
  const effective = Math.min(parseTime(read.effectiveAt) ?? result.finishedAt, result.finishedAt);
  const text = (Array.isArray(read.text) ? read.text : []).filter((t) => typeof t === 'string' && t.length > 0);
  return {
    ...provenance,
    effectiveAt: effective,
    fresh: result.finishedAt - effective <= contract.maxAgeMs,
    status: 'ok',
    facts: scalarFacts(read.facts, contract.maxObservationBytes),
    quoted: quote(text),
    textWithheld: text.length > 0,
    ...(result.truncated ? { truncated: result.truncated } : {}),
  };
}

function parseTime(iso: string | undefined): number | undefined {
  if (!iso) return undefined;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * Contracts promise scalars; enforce it so nothing structured slips into control state. A string
 * is kept whole, as long as the contract lets the output be, or not at all: a fact cut short would
 * vouch for a value the source never held (a prefix of a channel name, an account number).
 */
function scalarFacts(facts: Facts, maxChars: number): Facts {
  const out: Facts = {};
  for (const [key, value] of Object.entries(facts ?? {})) {
    if (typeof value === 'string' && value.length > maxChars) continue;
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) out[key] = value;
  }
  return out;
}

function quote(lines: string[]): string[] {
  const out: string[] = [];
  let budget = MAX_QUOTED_CHARS;
  for (const line of lines) {
    if (budget <= 0) {
      out.push('[more text withheld]');
      break;
    }
    out.push(line.length > budget ? `${line.slice(0, budget)}…` : line);
    budget -= line.length;
  }
  return out;
}

/** What the output says it is about, normalised as call subjects are; a callback that throws says "nothing we can match". */
function answeredSubject(contract: ToolContract, output: unknown): string | undefined {
  if (!contract.answers) return undefined;
  try {
    const named = contract.answers(output as never);
    return typeof named === 'string' ? named.replace(/\s+/g, '_').slice(0, 200) : '(no subject)';
  } catch {
    return '(no subject)';
  }
}
