// Finding runs by their search attributes: the filter AgentClient.list takes, checked before it
// becomes a visibility query (values are quoted; a value that could break out is refused), and
// the row each run comes back as. Visibility is eventually consistent: a run that has just
// changed phase may take a moment to show up under its new phase. The workflow type and the
// search attributes are whatever a starter set: anyone who can start a workflow can make one
// that looks like ours, run by a worker of their own. Only the task queue tells the engine's runs
// from such look-alikes (the engine's workers poll its queue), so a row says whether its queue
// is one this client serves, and a filter can ask for those runs alone.
import { TerminalClass } from '../workflows/controller/index.js';
import { domainKey, phaseKey, terminalKey, VisiblePhase } from '../workflows/search-attributes.js';
import { AGENT_WORKFLOW_TYPE } from '../workflows/agent-workflow-type.js';
import { InvalidRequestError } from './agent-errors.js';
import type { RunBuild } from './run-build.js';

/** What AgentClient.list filters on: domain, phase, outcome, a limit. */
export interface ListFilter {
  domain?: string;
  /** The visible phase: running, awaiting_approval, reconciling or terminal. */
  phase?: string;
  /** How the run ended (a TerminalClass: resolved, escalated, ...). */
  terminal?: string;
  /** At most this many runs (default 50, at most 10000). */
  limit?: number;
  /**
   * true: only runs on a task queue this client serves (the engine's runs); false: only runs on
   * other queues (look-alikes, or runs started on a queue nobody here serves); absent: both,
   * each row saying which (`served`).
   */
  served?: boolean;
}

export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 10_000;

/** One run as AgentClient.list finds it in the server's visibility store. */
export interface ListRow {
  runId: string;
  domain: string | null;
  caseId: string | null;
  phase: string | null;
  terminal: string | null;
  stopReason: string | null;
  /** Temporal's execution status: RUNNING, COMPLETED, TERMINATED, ... */
  status: string;
  startTime: string;
  /** The task queue the run's workflow tasks go to (a worker must poll it for the run to move). */
  taskQueue: string;
  /** The build the execution is on under Worker Versioning (client/run-build.ts); null when it is not versioned. */
  build?: RunBuild | null;
  /** Temporal's id of the execution listed (a run that continued as new is listed once per execution). */
  executionRunId?: string;
  /** Temporal's id of the chain's first execution, when the server says (the run's `chain`). */
  firstRunId?: string | null;
  /** Whether the run's task queue is one this client serves; false: not one of this engine's runs. */
  served?: boolean;
}

/** What a row or a report says of a run whose task queue this engine's workers do not serve. */
export function notServedWords(taskQueue: string, served: readonly string[]): string {
  return `not served by this engine's queue: task queue ${taskQueue} is not ${served.join(' or ')}, so this is not one of this engine's runs`;
}

/**
 * Refuses a filter that is wrong in itself. `label` names a field in the message (the CLI says
 * `--phase`, a program's caller sees `phase`).
 */
export function validateListFilter(filter: ListFilter, label: (field: keyof ListFilter) => string = (f) => f): void {
  const { domain, phase, terminal, limit } = filter;
  if (domain !== undefined) checkValue(label('domain'), domain);
  if (phase !== undefined) {
    checkValue(label('phase'), phase);
    if (!VisiblePhase.safeParse(phase).success) throw new InvalidRequestError(`${label('phase')} must be one of ${VisiblePhase.options.join(', ')}`);
  }
  if (terminal !== undefined) {
    checkValue(label('terminal'), terminal);
    if (!TerminalClass.safeParse(terminal).success) throw new InvalidRequestError(`${label('terminal')} must be one of ${TerminalClass.options.join(', ')}`);
  }
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT)) {
    throw new InvalidRequestError(`${label('limit')} must be between 1 and ${MAX_LIST_LIMIT}, got ${limit}`);
  }
}

/** The visibility query for a filter (validated first); `served` is the client's own task queues. */
export function buildListQuery(filter: ListFilter, served: readonly string[] = []): string {
  validateListFilter(filter);
  for (const queue of served) checkValue('task queue', queue);
  const clauses = [`WorkflowType = '${AGENT_WORKFLOW_TYPE}'`];
  if (filter.served !== undefined) {
    if (served.length === 0) throw new InvalidRequestError('this client serves no task queue: it cannot tell its own runs from others');
    // The server filters: runs on other queues never take places in the limit.
    clauses.push(filter.served ? `(${served.map((q) => `TaskQueue = '${q}'`).join(' OR ')})` : served.map((q) => `TaskQueue != '${q}'`).join(' AND '));
  }
  if (filter.domain !== undefined) clauses.push(`${domainKey.name} = '${filter.domain}'`);
  if (filter.phase !== undefined) {
    clauses.push(`${phaseKey.name} = '${filter.phase}'`);
    // A run that closed without a terminal record (terminated, failed) keeps its last phase;
    // it is not proposing or waiting for anyone any more.
    if (filter.phase !== 'terminal') clauses.push(`ExecutionStatus = 'Running'`);
  }
  if (filter.terminal !== undefined) clauses.push(`${terminalKey.name} = '${filter.terminal}'`);
  return clauses.join(' AND ');
}

function checkValue(name: string, value: string): void {
  // eslint-disable-next-line no-control-regex
  if (/['"`\\\u0000-\u001f]/.test(value)) throw new InvalidRequestError(`${name} may not contain quotes, backslashes or control characters`);
  if (!value) throw new InvalidRequestError(`${name} may not be empty`);
}
