// Listing runs from the visibility store without decoding what the list does not show. The
// SDK's workflow.list() decodes every execution's memo with the client's data converter, and one
// memo it cannot decode (written under a key this client does not hold, or by anyone who can
// start a workflow with a made-up encoding and our domain's search attribute) ends the whole
// list: an operator's inbox taken down by one workflow. Here only the fields a row shows are
// read: ids, status, start time, task queue, and the keyword search attributes, which the
// server stores unencoded.
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter, defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes, type SearchAttributePair } from '@temporalio/common';
import proto from '@temporalio/proto';
import { allSearchAttributeKeys } from '../workflows/search-attributes.js';
import type { ListRow } from './list-query.js';
import { buildOf } from './run-build.js';
import { fromSearchAttributes } from './server-facts.js';

// The proto package is CommonJS: its namespaces come from the default export under ESM.
const { temporal } = proto;
type RawExecution = proto.temporal.api.workflow.v1.IWorkflowExecutionInfo;

// The engine's keys and the ones the server keeps for versioned runs (run-build.ts reads them).
const KEYWORD_KEYS = [
  ...allSearchAttributeKeys,
  ...['TemporalWorkerDeployment', 'TemporalWorkerDeploymentVersion', 'TemporalWorkflowVersioningBehavior'].map((name) =>
    defineSearchAttributeKey(name, SearchAttributeType.KEYWORD),
  ),
];
const STATUS_PREFIX = 'WORKFLOW_EXECUTION_STATUS_';

/** Up to `limit` rows for a visibility query, page by page. */
export async function listRows(client: Client, query: string, limit: number): Promise<ListRow[]> {
  const rows: ListRow[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query,
      pageSize: Math.min(limit - rows.length, 1_000),
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    for (const raw of page.executions ?? []) {
      rows.push(rowOf(raw));
      if (rows.length >= limit) return rows;
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return rows;
}

function rowOf(raw: RawExecution): ListRow {
  const typedSearchAttributes = keywordAttributes(raw.searchAttributes?.indexedFields ?? {});
  const named = temporal.api.enums.v1.WorkflowExecutionStatus[raw.status ?? 0] ?? 'WORKFLOW_EXECUTION_STATUS_UNSPECIFIED';
  const status = named.startsWith(STATUS_PREFIX) ? named.slice(STATUS_PREFIX.length) : named;
  const facts = fromSearchAttributes(typedSearchAttributes);
  // A run the server closed without the engine's last word (cleared, terminated, timed out)
  // keeps the phase it was in: it is not running any more, whatever that says.
  const closedUnrecorded = status !== 'RUNNING' && status !== 'CONTINUED_AS_NEW' && facts.phase !== 'terminal';
  return {
    runId: raw.execution?.workflowId ?? '',
    ...facts,
    ...(closedUnrecorded ? { phase: 'closed' } : {}),
    status,
    startTime: new Date(millis(raw.startTime)).toISOString(),
    taskQueue: raw.taskQueue ?? '',
    build: buildOf({ raw, typedSearchAttributes }),
    executionRunId: raw.execution?.runId ?? '',
    firstRunId: raw.firstRunId || null,
  } as ListRow;
}

/** The keyword attributes a row shows; a value that does not decode as a string is left out. */
function keywordAttributes(fields: Record<string, proto.temporal.api.common.v1.IPayload>): TypedSearchAttributes {
  const pairs: SearchAttributePair[] = [];
  for (const key of KEYWORD_KEYS) {
    const payload = fields[key.name];
    if (!payload) continue;
    try {
      const value: unknown = defaultPayloadConverter.fromPayload(payload);
      const text = Array.isArray(value) ? value[0] : value;
      if (typeof text === 'string') pairs.push({ key, value: text } as SearchAttributePair);
    } catch {
      // Not a value this client can read: the row shows the attribute as absent.
    }
  }
  return new TypedSearchAttributes(pairs);
}

function millis(ts: { seconds?: unknown; nanos?: unknown } | null | undefined): number {
  const { seconds, nanos } = (ts ?? {}) as { seconds?: unknown; nanos?: unknown };
  return Number(String(seconds ?? 0)) * 1000 + Math.floor((typeof nanos === 'number' ? nanos : 0) / 1e6);
}
