import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { z } from 'zod';
import { workerScoped } from './worker-scoped.js';
import { shownPhase, type Phase } from './controller/index.js';

// Operators filter runs by these in the Web UI and `cli list`. They are registered when the
// dev server starts (temporal-dev) and must be created once on any other cluster (see README).
export const domainKey = defineSearchAttributeKey('AgentDomain', SearchAttributeType.KEYWORD);
export const caseKey = defineSearchAttributeKey('AgentCase', SearchAttributeType.KEYWORD);
export const phaseKey = defineSearchAttributeKey('AgentPhase', SearchAttributeType.KEYWORD);
export const terminalKey = defineSearchAttributeKey('AgentTerminal', SearchAttributeType.KEYWORD);
export const stopReasonKey = defineSearchAttributeKey('AgentStopReason', SearchAttributeType.KEYWORD);

export const allSearchAttributeKeys = [domainKey, caseKey, phaseKey, terminalKey, stopReasonKey];

/**
 * The phase as operators filter on it. proposing, acting and verifying alternate every turn;
 * writing each one would cost two history events a turn for nothing anyone searches by, so
 * they all show as `running`. The query `state` has the exact phase.
 */
export const VisiblePhase = workerScoped('search-attributes.VisiblePhase', () => z.enum(['running', 'awaiting_approval', 'reconciling', 'terminal']));
export type VisiblePhase = z.infer<typeof VisiblePhase>;

export function visiblePhase(phase: Phase): VisiblePhase {
  const shown = shownPhase(phase);
  return shown === 'awaiting_approval' || shown === 'reconciling' || shown === 'terminal' ? shown : 'running';
}

/**
 * What a run is about, and where it stands when `phase` is given. A starter sets these when it
 * starts a run (`startSearchAttributes`): the run is findable by domain and case, and shows as
 * running, before or without a worker's first task, and the workflow need not write them.
 */
export function runSearchAttributes(run: { domain: string; caseId: string }, phase?: VisiblePhase) {
  return [{ key: domainKey, value: run.domain }, { key: caseKey, value: run.caseId }, ...(phase ? [{ key: phaseKey, value: phase }] : [])];
}

/** What a starter sets when it starts a run: see runSearchAttributes. */
export function startSearchAttributes(run: { domain: string; caseId: string }) {
  return runSearchAttributes(run, 'running');
}
