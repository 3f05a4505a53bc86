import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// Operators filter runs by these in the Web UI and `cli list`. They are registered when the
// dev server starts (temporal-dev) and must be created once on any other cluster (see README).
export const domainKey = defineSearchAttributeKey('AgentDomain', SearchAttributeType.KEYWORD);
export const caseKey = defineSearchAttributeKey('AgentCase', SearchAttributeType.KEYWORD);
export const phaseKey = defineSearchAttributeKey('AgentPhase', SearchAttributeType.KEYWORD);
export const terminalKey = defineSearchAttributeKey('AgentTerminal', SearchAttributeType.KEYWORD);
export const stopReasonKey = defineSearchAttributeKey('AgentStopReason', SearchAttributeType.KEYWORD);

export const allSearchAttributeKeys = [domainKey, caseKey, phaseKey, terminalKey, stopReasonKey];
