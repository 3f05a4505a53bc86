// Why this exists: how the scripted planner of shape `plan` answers the user. It never sees the
// text its reads return, so each part of the answer key (honest.ts) it was not shown becomes a
// reference to an extraction (`{"$ref": "x1"}`, want `answer.<part>`), which a model with no tools
// answers from one read and the engine fills in before the finish is judged; the planner learns
// from what it is told of each extraction where to look next. The extractor's side is here too.
import { type CompiledContext, MAX_PLAN_STEPS } from '../../workflows/controller/index.js';
import { answerParts, sayable, saysWhole } from './honest.js';
import type { CaseState } from './models.js';
import { factShowing, plannerText } from './planner-shown.js';

/**
 * The finish's answer, part by part (the parts of the key's answer, honest.ts): a part whose every
 * word the planner was shown (in phrases, as honest.ts judges a model's answer), that states no
 * words (a number it may compute) or only a label of its own before one, as it is; a fact it was shown, by
 * reference; a part an earlier extraction found, by that extraction's evidence; else an extraction
 * from a read it has not yet looked in for that part (one of this plan's own, else the newest
 * earlier one). Where no read is left to look in, it says the part's numbers and leaves its words
 * out. Undefined when the plan has no room for the extractions beside its calls: the calls go first.
 */
export function answerPlanned(
  state: CaseState,
  context: CompiledContext,
  extracted: number,
  planned: number,
  planReads: string[],
): { parts: unknown[]; steps: unknown[] } | undefined {
  const looked = learnFromLastPlan(state, context);
  const shown = plannerText(context);
  const parts: unknown[] = [];
  const steps: unknown[] = [];
  const slots: NonNullable<CaseState['answerSlots']> = {};
  let crowded = false;
  answerParts(state.info.groundTruthOutput).forEach((part, k) => {
    const fact = factShowing(part, context);
    const found = looked[k]?.found;
    if (saysWhole(part, shown) || labelledNumber(part)) parts.push(part);
    else if (found) parts.push({ $ref: `${found}.value` });
    else if (fact) parts.push({ $ref: fact });
    else {
      // A plan holds so many steps: with calls in it, the answer waits for a plan of its own; alone, the rest go unsaid.
      const full = planned + steps.length >= MAX_PLAN_STEPS;
      crowded ||= full && planned > 0;
      const from = full ? undefined : (planReads.at(-1) ?? unlookedRead(context, looked[k]?.tried ?? [], part, askedAbout(state, context, part)));
      if (!from) {
        const numbers = sayable(part, '');
        if (numbers) parts.push(numbers);
        return;
      }
      const id = `x${++extracted}`;
      steps.push({ id, extract: { from, want: `answer.${k}` } });
      slots[id] = { part: k, from };
      parts.push({ $ref: id });
    }
  });
  if (crowded) return undefined;
  state.answerSlots = slots;
  return { parts, steps };
}

/**
 * What the last plan's answer extractions came to, as the planner was told it (`x2 extract: ok
 * -> e9`, `x1 extract: failed (error) -> e8`, `s2 search_emails: ok -> e5`): per part, the evidence
 * of the one that found it, and the reads each that did not looked in. An extraction that never ran
 * looked nowhere.
 */
function learnFromLastPlan(state: CaseState, context: CompiledContext): NonNullable<CaseState['answerLooked']> {
  const looked = (state.answerLooked ??= {});
  const lines = context.open ?? [];
  const evidenceOf = (step: string) =>
    step.startsWith('e') ? step : lines.flatMap((line) => (line.startsWith(`${step} `) ? (/: ok -> (e\d+)/.exec(line)?.[1] ?? []) : []))[0];
  for (const line of lines) {
    const [, id, outcome, evidence] = /^(x\d+) \S+: (ok|failed)\b.*-> (e\d+)/.exec(line) ?? [];
    const slot = id === undefined ? undefined : state.answerSlots?.[id];
    if (!slot || !evidence) continue;
    const part = (looked[slot.part] ??= { tried: [] });
    if (outcome === 'ok') part.found = evidence;
    const read = evidenceOf(slot.from);
    if (read) part.tried.push(read);
  }
  state.answerSlots = {};
  return looked;
}

/**
 * Where an extraction looks for a part of the answer the planner was not shown: first a read it
 * asked about that very thing (asked), since what a read was asked about is what its text names;
 * else the newest read that answered and that an extraction has not looked in for this part (the
 * planner cannot tell which hold text), for a part with no digits (a name, most likely) first the
 * reads that listed names (their `hotel.#e3-1.name` handles, whose values it was not shown).
 */
function unlookedRead(context: CompiledContext, tried: string[], part: string, asked: string[]): string | undefined {
  const reads = new Set(context.tools.filter((t) => t.kind === 'read').map((t) => t.name));
  const open = [...context.evidence].reverse().filter((e) => e.status === 'ok' && reads.has(e.tool) && !tried.includes(e.id));
  const about = asked.filter((id) => open.some((e) => e.id === id));
  const names = /\d/.test(part) ? [] : open.filter((e) => e.withheld?.some((key) => /\.name$/.test(key)));
  return about[0] ?? (names[0] ?? open[0])?.id;
}

/**
 * The reads the planner asked about `part` (a hotel it asked the price of), by their evidence: the
 * task's calls whose arguments name it, each matched to the run's read of that tool in the same
 * order. The planner wrote those calls for that thing; where it wrote a list of handles it could
 * not see into, the read it made is still the one about it.
 */
function askedAbout(state: CaseState, context: CompiledContext, part: string): string[] {
  const wanted = part.toLowerCase();
  return state.plan.flatMap((call, i) => {
    const names = Object.values(call.args).flat();
    if (!names.some((v) => typeof v === 'string' && v.toLowerCase() === wanted)) return [];
    const nth = state.plan.slice(0, i).filter((c) => c.function === call.function).length;
    const read = context.evidence.filter((e) => e.tool === call.function && e.status === 'ok')[nth];
    return read ? [read.id] : [];
  });
}

/** A label in lowercase words of its own and a number it computed (`final price: 720`). */
const labelledNumber = (part: string) => /^[a-z_ ]+:\s*[^\p{L}]+$/u.test(part);

/** The extractor's answer for part `part` of the answer: the part, if this read's text shows every word of it; else none. */
export function answerPartIn(state: CaseState, part: number, shown: string): string | null {
  const wanted = answerParts(state.info.groundTruthOutput)[part];
  if (wanted === undefined) return null;
  return saysWhole(wanted, shown) ? wanted : null;
}
