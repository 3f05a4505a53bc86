// A real history (late-seal-check/README.md) in which Temporal's core handed a seal check's result
// to the workflow a task late, after an Update the run accepted in that task. Replay hands the
// result over first, so the history does not replay: the reason workflows/arrivals.ts refuses an
// Update while a seal check is not yet acted on. The same history without that Update (all a
// refusal leaves) replays. If the first test starts failing because the history replays, the SDK
// has changed its ordering, and the refusal may no longer be needed.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { RULE_SET } from '../../workflows/rule-set.js';

const file = fileURLToPath(new URL('./late-seal-check/alerts-update-after-local-activity.json', import.meta.url));
const workflowId = 'alerts-INC-RLf3d460-ag60f97dd30ca6';

/** The history as JSON events, with `eventId`s and every `…EventId` reference as strings. */
type JsonEvent = Record<string, unknown> & { eventId: string; eventType: string };

/**
 * The history with its rule-set marker renamed to this release's, so that the current code
 * replays it instead of refusing it by name (OlderRuleSetError). It was recorded under engine-v20;
 * engine-v21 and engine-v22 changed only what workflows/arrivals.ts does (what arrives, and the
 * time the loop reads, while a seal check is pending), which replay of this history never
 * reaches before the task that fails.
 */
function underThisRuleSet(events: JsonEvent[]): JsonEvent[] {
  const renamed = Buffer.from(JSON.stringify({ id: RULE_SET, deprecated: false })).toString('base64');
  return events.map((e) => {
    const marker = e.markerRecordedEventAttributes as { markerName?: string; details?: Record<string, { payloads: Array<{ data: string }> }> } | undefined;
    const patch = marker?.markerName === 'core_patch' ? marker.details?.['patch-data']?.payloads[0] : undefined;
    if (!patch || !Buffer.from(patch.data, 'base64').toString().includes('"engine-v20"')) return e;
    return JSON.parse(JSON.stringify(e).replace(patch.data, renamed)) as JsonEvent;
  });
}

/** The events without that Update's acceptance and completion (128, 129), renumbered as the server would have numbered them. */
function withoutUpdate(events: JsonEvent[]): JsonEvent[] {
  const kept = events.filter((e) => !(['128', '129'].includes(e.eventId) && /WORKFLOW_EXECUTION_UPDATE_(ACCEPTED|COMPLETED)$/.test(e.eventType)));
  const renumbered = new Map(kept.map((e, i) => [e.eventId, String(i + 1)]));
  const renumber = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(renumber);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, (k === 'eventId' || k.endsWith('EventId')) && typeof v === 'string' ? (renumbered.get(v) ?? v) : renumber(v)]),
    );
  };
  return kept.map((e) => renumber(e) as JsonEvent);
}

describe('a seal check whose result came a task late, after an Update', () => {
  const saved = { events: underThisRuleSet((JSON.parse(readFileSync(file, 'utf8')) as { events: JsonEvent[] }).events) };
  let bundle: WorkflowBundleWithSourceMap;
  beforeAll(async () => {
    const workflowsPath = fileURLToPath(new URL('../../domains/alerts/workflows.ts', import.meta.url));
    bundle = await bundleWorkflowCode({ workflowsPath, logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } });
  });
  const replay = (events: JsonEvent[]) =>
    Worker.runReplayHistory({ workflowBundle: bundle, replayName: 'late-seal-check' }, historyFromJSON({ events }), workflowId);

  it('shows the order: the marker ends one task, the next starts at once, and the Update is accepted in it before any command', () => {
    const types = saved.events.slice(123, 131).map((e) => e.eventType.replace('EVENT_TYPE_', ''));
    expect(types).toEqual([
      'MARKER_RECORDED',
      'WORKFLOW_TASK_SCHEDULED',
      'WORKFLOW_TASK_STARTED',
      'WORKFLOW_TASK_COMPLETED',
      'WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
      'WORKFLOW_EXECUTION_UPDATE_COMPLETED',
      'TIMER_STARTED',
      'TIMER_STARTED',
    ]);
  });

  it('does not replay with the Update accepted: replay takes the result before it', async () => {
    await expect(replay(saved.events)).rejects.toThrow(/Timer machine does not handle this event: HistoryEvent\(id: 128, WorkflowExecutionUpdateAccepted\)/);
  });

  it('replays without it, as the run leaves it when it refuses the Update', async () => {
    const events = withoutUpdate(saved.events);
    expect(events).toHaveLength(saved.events.length - 2);
    await replay(events);
  });
});
