// The approval card's words, shared by the console and `agent status` so both say the same: who
// started the run and how, who proposed the call (route, plan or model, and which model), which
// of the domain's signed display lines argue against the call, what an evidence id such as `e5`
// is (an id the request cites or the engine's own lines name, never one inside quoted text), and
// how long a signed decision counts. An approver reads these at a glance, without knowing the
// engine's field names.
import { duration, isoTime } from './format.js';
import { AGAINST_PREFIX, type RunView } from './run-view.js';

type Awaiting = NonNullable<RunView['awaiting']>;
type Evidence = RunView['evidence']['items'][number];

/** Who started the run: the verified signer, or that nobody's key vouches for it. */
export function starterWords(start: RunView['start']): string {
  if (start.by) return `${start.by} (signed start, verified)`;
  if (start.signed) return 'a signed start whose signature has not verified (yet): nobody counts as its starter';
  return 'unsigned start: no key vouches for who started it';
}

/** Which model the run's input names, in words. */
export function modelWords(model: RunView['model']): string {
  if (!model) return 'a model the worker does not report';
  switch (model.adapter) {
    case 'rules':
      return "the domain's rules (a fixed policy, no language model)";
    case 'scripted':
      return 'scripted replies given at the start';
    case 'openai':
      return `the model ${model.name ?? "the worker's default"} (OpenAI-compatible endpoint)`;
    case 'custom':
      return `the worker's model adapter ${model.name ?? '(unnamed)'}`;
    default:
      return `${model.adapter}${model.name ? ` ${model.name}` : ''}`;
  }
}

/** Who proposed the pending call: the domain's route, a plan the model made earlier, or the model this turn. */
export function proposerWords(view: Pick<RunView, 'model' | 'shape'>, by: Awaiting['proposedBy']): string {
  const shape = view.shape ? `; the run's shape is ${view.shape}` : '';
  if (by === 'route') return `the domain's route (its runbook, no model)${shape}`;
  if (by === 'plan') return `the plan made earlier by ${modelWords(view.model)}${shape}`;
  if (by === 'model') return `${modelWords(view.model)}${shape}`;
  return `not recorded (the turn's receipt is no longer in the run's state); the run's model is ${modelWords(view.model)}`;
}

/** The display lines the domain marks as arguing against the call (`against: ` keys, prefix cut), and the rest. */
export function splitDisplay(display: Awaiting['display']): { against: Array<[string, string]>; lines: Array<[string, string]> } {
  const against: Array<[string, string]> = [];
  const lines: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(display ?? {})) {
    if (key.startsWith(AGAINST_PREFIX)) against.push([key.slice(AGAINST_PREFIX.length).trim() || key, value]);
    else lines.push([key, value]);
  }
  return { against, lines };
}

/** Fresh now, stale now (it was fresh when observed), or stale when observed: the same test the evidence block applies. */
export function freshnessWords(e: Pick<Evidence, 'fresh' | 'observedAt' | 'maxAgeMs'>, now: number): 'fresh' | 'stale now' | 'stale when observed' {
  if (!e.fresh) return 'stale when observed';
  return now - e.observedAt <= e.maxAgeMs ? 'fresh' : 'stale now';
}

/** `e5`: what it is, in one line: the tool and its source, when it was observed, and whether it is fresh. */
export function evidenceWords(e: Evidence, now: number): string {
  return `${e.tool} from ${e.source} (${e.authority}${e.status === 'ok' ? '' : `, ${e.status}`}), observed ${isoTime(e.observedAt)} (${duration(now - e.observedAt)} ago), ${freshnessWords(e, now)}`;
}

/**
 * The display lines the engine writes naming the evidence a value rests on: where a vouched-for
 * argument's value was read (`source of amount`: `fact ledger.amountMinor (e3)`) and what a
 * derived one was computed from (workflows/controller/display.ts). Every other line may carry
 * text someone else wrote (an `against: unvouched value` line quotes the value itself), so an
 * `e3` inside it names nothing.
 */
const EVIDENCE_NAMING_LINE = /^(source of|derived) /;

/**
 * The evidence ids the card mentions: those the request cites, then those the engine's own
 * `source of` and `derived` lines name, each once, in that order; with the record when the run
 * still has it. An id in any other line (a quoted value such as `"e3 ok"`) is not taken: it would
 * put unrelated evidence in the legend as if the call rested on it.
 */
export function evidenceOnCard(view: Pick<RunView, 'evidence'>, a: Pick<Awaiting, 'evidenceIds' | 'display'>): Array<{ id: string; evidence?: Evidence }> {
  const named = Object.entries(a.display ?? {})
    .filter(([key]) => EVIDENCE_NAMING_LINE.test(key))
    .flatMap(([, v]) => [...v.matchAll(/\be\d+\b/g)].map((m) => m[0]));
  const known = new Map(view.evidence.items.map((e) => [e.id, e]));
  const ids = [...new Set([...a.evidenceIds, ...named.filter((id) => known.has(id))])];
  return ids.map((id) => {
    const evidence = known.get(id);
    return evidence ? { id, evidence } : { id };
  });
}

/** `10 minutes`, `1 hour`, `90 seconds`: a lifetime in the words a person says. */
export function plainDuration(ms: number): string {
  const s = Math.round(ms / 1_000);
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (s % 3_600 === 0 && s >= 3_600) return unit(s / 3_600, 'hour');
  if (s % 60 === 0 && s >= 60) return unit(s / 60, 'minute');
  return unit(s, 'second');
}

/** What a signed decision's lifetime means, in one sentence. */
export function validForWords(ms: number): string {
  return `your approval is valid for ${plainDuration(ms)} after you sign: if it reaches the run later, the run refuses it`;
}
