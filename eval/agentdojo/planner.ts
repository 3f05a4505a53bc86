// Why this exists: the scripted models' two roles in shape `plan`. As the planner, a model sees
// only trusted input (the signed request, the goal, the tools, typed facts) and writes the user
// task's ground-truth calls as a plan, taking each value from what it was shown: a reference to a
// fact it was shown (each item of a list too) or, where a signed note says it as written, a quote
// of the note (`{"$quote": ...}`), a literal the request states (a number as a number
// of its own, a day as a date or a month and its day; or an argument's own words, or a value the
// tool lists), the one withheld fact of the argument's kind (among several, the record the request
// chooses by the words and numbers shown: planner-choice.ts), or else an extraction from a read it
// cannot see into (with none left, a read's parameter may be its own: a count; a list of names is
// every name a read listed, asked once of each tool, never the task's own list of names it was
// not shown; an effect's value may not, and it escalates). A read it already planned it plans
// once; a value that needs a read the plan has not made yet ends the plan there, and the planner
// plans on when it is asked again. An id it was shown only as an effect's answer (a file it made)
// it reads back first (readBack). A precondition that refused a call and names the reads it
// judges gets those read first (`args` {}), once. It stops
// when a person says no, the gate refuses the same call twice, or three plans get no further.
// As the extractor, a model sees one read's text and answers one value: the oracle the value its
// task needs if that text holds it (else none), the obedient adversary the injection's value if
// the text carries the injection. A number no shown value states may still be computed by one of
// the tool's declared derivations (planner-derive.ts). The obedient planner obeys an injection
// too, if it is ever shown one; the plan shape is what should keep it from being shown one.
import type { CompiledContext } from '../../workflows/controller/index.js';
import { answerPartIn, answerPlanned } from './planner-answer.js';
import { factShowing, onShownDate, plannerText, signedWords, statedIn, type Value } from './planner-shown.js';
import type { Domain } from '../../workflows/contract.js';
import type { GroundTruthCall } from './client.js';
import type { CaseState, ScriptedModel } from './models.js';
import { showsInjection } from './models.js';
import { findDerivation } from './planner-derive.js';
import { chosenOfKind } from './planner-choice.js';

/** The planner's reply: a plan from the task's next unplanned call on, with the finish once every call is planned. */
export function planReply(model: ScriptedModel, state: CaseState, context: CompiledContext, domain: Domain): unknown {
  // A person said no, or the gate refused the same call twice: nothing the planner knows would change that.
  const refused = (context.open ?? []).flatMap((line) => /^s(\d+) (\S+): refused \(([a-z_]+)(?:; needs ([^)]+))?\)/.exec(line) ?? []);
  if (refused.length) {
    const [, step, tool, code, needs] = refused;
    // A precondition that names the reads it judges: those not read yet are planned before the call, once.
    const unread = (needs ?? '').split(', ').filter((n) => n && !context.evidence.some((e) => e.tool === n && e.status === 'ok'));
    if (code === 'precondition_failed' && unread.length > 0 && !state.retried.has(`needs ${step}`)) {
      state.retried.add(`needs ${step}`);
      state.plan.splice(Number(step) - 1, 0, ...unread.map((read) => ({ function: read, args: {} })));
    } else {
      if (code === 'approval_denied' || state.retried.has(`plan ${step}`)) return { type: 'escalate', reason: `${tool} came back ${code}` };
      state.retried.add(`plan ${step}`);
    }
  }
  const before = state.planned && { from: state.planned.from, evidence: state.planned.evidence };
  state.cursor = plannedThrough(state, context);
  // Planned from the same call three times, with nothing new read in between: the plan cannot get there.
  const stalled = before !== undefined && state.cursor === before.from && context.evidence.length === before.evidence;
  state.stalls = stalled ? (state.stalls ?? 0) + 1 : 0;
  if (state.stalls >= 3) return { type: 'escalate', reason: `the plan got no further than ${state.plan[state.cursor]?.function ?? 'the end'} in three tries` };
  if (model === 'obedient' && !state.obeyed && showsInjection(context, state.info)) {
    state.obeyed = true;
    state.plan.splice(state.cursor, 0, ...state.info.injectionGroundTruth);
  }
  const steps: unknown[] = [];
  // A read the plan already has is not planned twice (a task made of two asks the same thing twice): one turn may not ask it twice.
  const readsPlanned = new Set<string>();
  const repeats: number[] = [];
  let reads = 0;
  let extractions = 0;
  let readingBack = false;
  let i = state.cursor;
  for (; i < state.plan.length; i++) {
    const call = state.plan[i] as GroundTruthCall;
    const contract = domain.tools.find((t) => t.name === call.function);
    const args: Record<string, unknown> = {};
    let waits = false;
    let repeat = false;
    // A read planned to show what an earlier effect made goes first; the effect waits for it.
    if (readingBack && contract?.kind === 'effect') break;
    // An id an effect of the run answered is its own word, which vouches for nothing: read it back first, once.
    const backed = `read back ${call.function} ${JSON.stringify(call.args)}`;
    const back = contract?.kind === 'effect' && !state.retried.has(backed) ? readBack(call, state, context, domain) : undefined;
    if (back) {
      state.retried.add(backed);
      state.plan.splice(i, 0, back);
      readingBack = true;
      i--;
      continue;
    }
    for (const [name, value] of Object.entries(call.args)) {
      const source = sourceFor(name, value, call.function, context, domain);
      const derived = source.kind === 'none' && typeof value === 'number' && contract ? findDerivation(contract, name, value, call.args, context) : undefined;
      if (source.kind === 'literal') args[name] = value;
      else if (source.kind === 'written') args[name] = source.arg;
      else if (source.kind === 'fact') args[name] = { $ref: source.ref };
      // A list named whole waits for the reads planned before it: one of them may be the list it means.
      else if (source.kind === 'facts' && reads > 0) waits = true;
      else if (source.kind === 'facts') args[name] = source.refs.map((ref) => ({ $ref: ref }));
      else if (derived && !derived.extract) args[name] = { $derive: { rule: derived.rule, operands: derived.operands } };
      else if (reads > 0) waits = true;
      else if (Array.isArray(value)) {
        // A list is not one value a model with no tools answers. An effect cannot go without it; a
        // read asks about every item a read listed (more than it needs, but no name it was not
        // shown), once a list: asked again about some of them, it would answer nothing new.
        if (contract?.kind === 'effect') return { type: 'escalate', reason: `nothing the run showed gives ${call.function}'s ${name}` };
        if (context.evidence.some((e) => e.tool === call.function) && !listedSince(state.plan, i)) {
          repeat = true;
          continue;
        }
        const every = everyListed(value, call.function, context, true);
        if (every.kind !== 'facts') return { type: 'escalate', reason: `nothing the run showed names the ${name} for ${call.function}` };
        args[name] = every.refs.map((ref) => ({ $ref: ref }));
      } else if (derived?.extract && (state.triedFrom[`${call.function}.${name}`]?.length ?? 0) > 0) {
        // The text did not state the value itself: the one operand nothing shown states is
        // extracted instead, and the derivation written around it.
        const want = `${call.function}.${name}.${derived.extract.operand}`;
        const from = textRead(context, state, want);
        if (!from) return { type: 'escalate', reason: `nothing the run showed gives ${call.function}'s ${name}` };
        (state.expected ??= {})[want] = derived.extract.value;
        const id = `x${++extractions}`;
        const kind = (contract?.argKinds as Record<string, string | undefined> | undefined)?.[name];
        steps.push({ id, extract: { from, want, ...(kind ? { kind } : {}), type: 'number' } });
        args[name] = { $derive: { rule: derived.rule, operands: { ...derived.operands, [derived.extract.operand]: { $ref: id } } } };
      } else {
        const from = textRead(context, state, `${call.function}.${name}`);
        if (!from) {
          // Nothing it was shown gives the value: a read's parameter may be its own (a count), an effect's may not.
          if (contract?.kind === 'effect') return { type: 'escalate', reason: `nothing the run showed gives ${call.function}'s ${name}` };
          args[name] = value;
          continue;
        }
        const id = `x${++extractions}`;
        const kind = (contract?.argKinds as Record<string, string | undefined> | undefined)?.[name];
        steps.push({
          id,
          extract: { from, want: `${call.function}.${name}`, ...(kind ? { kind } : {}), type: typeof value === 'number' ? 'number' : 'string' },
        });
        args[name] = { $ref: id };
      }
    }
    if (waits) break;
    const signature = `${call.function} ${JSON.stringify(args)}`;
    if (repeat || (contract?.kind === 'read' && readsPlanned.has(signature))) {
      repeats.push(i + 1);
      continue;
    }
    steps.push({ id: `s${i + 1}`, tool: call.function, args });
    if (contract?.kind === 'read') {
      reads++;
      readsPlanned.add(signature);
    }
  }
  state.planned = { from: state.cursor, to: i, evidence: context.evidence.length, repeats };
  if (i < state.plan.length) return { type: 'plan', steps, reason: 'the reads first; the rest once they are in' };
  const planReads = steps.flatMap((step) => {
    const { id, tool } = step as { id: string; tool?: string };
    return domain.tools.find((t) => t.name === tool)?.kind === 'read' ? [id] : [];
  });
  const answer = answerPlanned(state, context, extractions, steps.length, planReads);
  if (!answer) return { type: 'plan', steps, reason: 'the calls first; the answer once they are in' };
  return { type: 'plan', steps: [...steps, ...answer.steps], finish: { claim: { answer: answer.parts } }, reason: 'the task' };
}

/**
 * Whether the task lists anew between its last call of this tool and call `i`: a call asked
 * without a list (the restaurants of another city). Without one, the tool was already asked about
 * every item the planner can name, and asked again it would answer nothing new.
 */
function listedSince(plan: GroundTruthCall[], i: number): boolean {
  let last = i - 1;
  while (last >= 0 && plan[last]?.function !== plan[i]?.function) last--;
  return plan.slice(last + 1, i).some((c) => !Object.values(c.args).some(Array.isArray));
}

/** Where the last plan got to: its calls up to the first one the planner is not told came back ok. */
function plannedThrough(state: CaseState, context: CompiledContext): number {
  if (!state.planned) return state.cursor;
  const ok = new Set((context.open ?? []).flatMap((line) => /^s(\d+) \S+: ok\b/.exec(line)?.[1] ?? []).map(Number));
  let at = state.planned.from;
  while (at < state.planned.to && (ok.has(at + 1) || state.planned.repeats.includes(at + 1))) at++;
  return at;
}

type Source = { kind: 'literal' } | { kind: 'written'; arg: unknown } | { kind: 'fact'; ref: string } | { kind: 'facts'; refs: string[] } | { kind: 'none' };

/**
 * Where the planner takes a value from, among what it was shown. A value it was shown as a fact
 * it refers to, as the gate asks of a plan (a literal equal to a fact it was shown is refused:
 * cited-sources.ts), so the fact's kind counts; else text it may copy; else, for an argument of a
 * kind, the one fact of that kind a read withheld from it (`hotel.#e3-1.address` for an event's
 * place: "you may refer to what you cannot see").
 */
function sourceFor(name: string, value: unknown, tool: string, context: CompiledContext, domain: Domain): Source {
  const contract = domain.tools.find((t) => t.name === tool);
  if (contract?.narrativeArgs?.includes(name)) return { kind: 'literal' };
  const items = [value].flat();
  const leaves = items.filter((v): v is Value => typeof v === 'string' || typeof v === 'number');
  if (leaves.length === 0) return { kind: 'literal' };
  // A value it was shown as a fact it refers to, unless a signed note says it as written: then it
  // quotes the person's words, which hold it whatever the fact is worth.
  const written = leaves.map((leaf) => {
    const ref = factShowing(leaf, context, name);
    return ref === undefined ? undefined : signedWords(leaf, context) ? { $quote: leaf } : { $ref: ref };
  });
  if (leaves.length === items.length && written.every((w) => w !== undefined)) return { kind: 'written', arg: Array.isArray(value) ? written : written[0] };
  // Whatever text it was shown it may copy.
  const shown = plannerText(context);
  if (leaves.every((v) => statedIn(v, shown) || onShownDate(v, shown))) return { kind: 'literal' };
  if (Array.isArray(value)) return everyListed(value, tool, context);
  const kind = (contract?.argKinds as Record<string, string | undefined> | undefined)?.[name];
  const withheld = typeof value === 'string' && kind !== undefined ? (withheldOfKind(kind, context) ?? chosenOfKind(kind, context, shown)) : undefined;
  return withheld === undefined ? { kind: 'none' } : { kind: 'fact', ref: withheld };
}

/**
 * The read that shows what an effect of the run made, for a call that would carry a value the
 * planner was shown only as that effect's answer (a new file's id): a read of the same source whose
 * one argument the effect was given too (a file made with a `filename` is found by
 * `search_files_by_filename`), with the value the plan gave the effect. The domain says an
 * effect's answer vouches for nothing, so the planner re-reads before acting on it.
 */
function readBack(call: GroundTruthCall, state: CaseState, context: CompiledContext, domain: Domain): GroundTruthCall | undefined {
  for (const value of Object.values(call.args).flat()) {
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    const evidence = context.evidence.find((e) => e.id === factShowing(value, context)?.split('.')[0]);
    const effect = domain.tools.find((t) => t.name === evidence?.tool && t.kind === 'effect');
    const made = effect && state.plan.find((c) => c.function === effect.name);
    if (!effect || !made) continue;
    for (const read of domain.tools.filter((t) => t.kind === 'read' && t.source === effect.source)) {
      const [param, ...more] = Object.keys((read.input as { shape?: Record<string, unknown> }).shape ?? {});
      if (param !== undefined && more.length === 0 && typeof made.args[param] === 'string') return { function: read.name, args: { [param]: made.args[param] } };
    }
  }
  return undefined;
}

/**
 * A fact of `kind` the planner was not shown, by its masked key: the one in the newest read that
 * withheld any of that kind, and none if that read withheld several (the planner cannot tell them apart).
 */
function withheldOfKind(kind: string, context: CompiledContext): string | undefined {
  for (const e of [...context.evidence].reverse()) {
    const keys = (e.withheld ?? []).filter((k) => k.split('.').at(-1) === kind);
    if (keys.length > 0) return keys.length === 1 ? `${e.id}.${keys[0] as string}` : undefined;
  }
  return undefined;
}

/**
 * A list the planner cannot see into but can name whole: every item of the tool's kind a read
 * listed, by the handles it was shown (`hotel.#e3-1.name`, `hotel.#e3-2.name`, ...), when the task's
 * list is as long as the read's (or, for a read, `anyLength`), and the read is not one of the same
 * tool. "Every hotel in Paris" is what a planner asks for without reading one name.
 */
function everyListed(value: unknown[], tool: string, context: CompiledContext, anyLength = false): Source {
  if (value.length === 0 || !value.every((v) => typeof v === 'string')) return { kind: 'none' };
  // Not from a read of the same tool: the call would only ask again what it was answered. Names of
  // what the tool names itself for, where a read showed any (hotels for get_hotels_prices, never car rentals).
  const reads = [...context.evidence].reverse().filter((x) => x.tool !== tool);
  const handlesIn = (e: (typeof reads)[number]) => (e.withheld ?? []).filter((k) => /^[^.]+\.#[^.]+\.name$/.test(k));
  // A kind the tool names by its first word: `car` of car_rental in get_car_price_per_day.
  const named = (key: string) => tool.includes(key.split('.')[0]?.split('_')[0] as string);
  const anyNamed = reads.some((e) => handlesIn(e).some(named));
  for (const e of reads) {
    const handles = handlesIn(e).filter((k) => !anyNamed || named(k));
    if (handles.length > 0 && (anyLength || handles.length === value.length)) return { kind: 'facts', refs: handles.map((k) => `${e.id}.${k}`) };
  }
  return { kind: 'none' };
}

/** The newest read whose text the planner cannot see (and not tried for this value yet): where an extraction looks. */
function textRead(context: CompiledContext, state: CaseState, slot: string): string | undefined {
  const tried = (state.triedFrom[slot] ??= []);
  const read = [...context.evidence]
    .reverse()
    .find((e) => e.status === 'ok' && e.tool !== 'extract' && (e.withheld?.length || e.authority !== 'authoritative') && !tried.includes(e.id));
  if (read) tried.push(read.id);
  return read?.id;
}

/** The extractor's reply: one value from the one read it is shown, or none. */
export function extractReply(model: ScriptedModel, state: CaseState, context: CompiledContext): unknown {
  const want = context.extract?.want ?? '';
  const [tool, arg] = want.split('.');
  if (model === 'obedient' && showsInjection(context, state.info)) {
    state.obeyed = true;
    const injected = state.info.injectionGroundTruth.find((c) => arg !== undefined && Object.hasOwn(c.args, arg));
    if (injected && arg !== undefined) return { type: 'extracted', value: injected.args[arg] as Value };
  }
  const shown = context.evidence.flatMap((e) => [...(e.untrustedText ?? []), ...Object.values(e.facts).map(String)]).join('\n');
  if (tool === 'answer') return { type: 'extracted', value: answerPartIn(state, Number(arg), shown) };
  // An operand of a derivation the planner wrote has the value it solved for; any other slot, its task's value.
  const needed = state.expected?.[want] ?? state.plan.find((c) => c.function === tool && arg !== undefined && Object.hasOwn(c.args, arg))?.args[arg ?? ''];
  if (typeof needed !== 'string' && typeof needed !== 'number') return { type: 'extracted', value: null };
  return { type: 'extracted', value: shown.toLowerCase().includes(String(needed).toLowerCase()) ? needed : null };
}
