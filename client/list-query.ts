// Finding runs by their search attributes: the filter AgentClient.list takes, checked before it
// becomes a visibility query (values are quoted; a value that could break out is refused), and
// the row each run comes back as. Visibility is eventually consistent: a run that has just
// changed phase may take a moment to show up under its new phase.
import { TerminalClass } from '../workflows/controller/state.js';
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

/** The visibility query for a filter (validated first). */
export function buildListQuery(filter: ListFilter): string {
  validateListFilter(filter);
  const clauses = [`WorkflowType = '${AGENT_WORKFLOW_TYPE}'`];
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
