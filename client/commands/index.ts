// Every command's arguments, flags and one-line summary. The implementations are imported
// only when a command runs, so `--help` and usage errors answer at once.
import { asOption, type CommandSpec, type OptionSpec } from './types.js';

const PHASES = 'running|awaiting_approval|reconciling|terminal';
const TERMINALS = 'resolved|escalated|budget_exhausted|blocked|unknown_outcome|cancelled|failed';

// Approve and deny take the same flags: who decides, and why.
const decisionOptions: Record<string, OptionSpec> = {
  as: { type: 'string', value: 'IDENTITY', description: 'who decides (required; must hold one of the roles)' },
  comment: { type: 'string', value: 'C', description: 'why' },
};

export const commands: CommandSpec[] = [
  {
    name: 'start',
    args: ['domain', 'case'],
    summary: 'start the run for a case, or attach to the one that exists',
    options: {
      model: { type: 'string', value: 'rules|openai[:NAME]', description: 'which model proposes (default: rules)' },
      turns: { type: 'string', value: 'N', description: 'turn budget' },
      'deadline-ms': { type: 'string', value: 'N', description: 'run deadline in milliseconds' },
      'approval-timeout-ms': { type: 'string', value: 'N', description: 'how long an approval request waits' },
    },
    load: async () => (await import('./start.js')).start,
  },
  {
    name: 'watch',
    args: ['run'],
    summary: 'follow a run turn by turn until it ends',
    options: {},
    load: async () => (await import('./watch.js')).watch,
  },
  {
    name: 'status',
    args: ['run'],
    summary: 'phase, turn, budgets left, pending approval and outcome of a run',
    options: {},
    load: async () => (await import('./status.js')).status,
  },
  {
    name: 'list',
    args: [],
    summary: 'runs by domain, phase or outcome',
    options: {
      domain: { type: 'string', value: 'D', description: 'only runs of this domain' },
      phase: { type: 'string', value: 'P', description: `only runs in this phase (${PHASES})` },
      terminal: { type: 'string', value: 'T', description: `only runs that ended this way (${TERMINALS})` },
      'awaiting-approval': { type: 'boolean', description: 'only runs waiting for a person (--phase awaiting_approval)' },
      limit: { type: 'string', value: 'N', description: 'at most N runs (default 50)' },
    },
    load: async () => (await import('./list.js')).list,
  },
  {
    name: 'approve',
    args: ['run', 'request'],
    summary: 'approve the pending effect of a run',
    options: decisionOptions,
    load: async () => (await import('./approvals.js')).approve,
  },
  {
    name: 'deny',
    args: ['run', 'request'],
    summary: 'deny the pending effect of a run (the model is told)',
    options: decisionOptions,
    load: async () => (await import('./approvals.js')).deny,
  },
  {
    name: 'note',
    args: ['run', 'text...'],
    summary: 'add a note to a run; the model sees it in its context',
    options: { as: asOption },
    load: async () => (await import('./operator.js')).note,
  },
  {
    name: 'cancel',
    args: ['run'],
    summary: 'stop a run; a pending approval is closed, nothing further runs',
    options: { as: asOption, reason: { type: 'string', value: 'R', description: 'why (recorded in the terminal detail)' } },
    load: async () => (await import('./operator.js')).cancel,
  },
  {
    name: 'export',
    args: ['run'],
    summary: 'the run record as JSON (schema RunExport: receipts, evidence, effects, approvals)',
    options: {},
    load: async () => (await import('./export.js')).exportRun,
  },
  {
    name: 'replay',
    args: ['run'],
    summary: "replay a run's history against the current workflow code",
    options: { bundle: { type: 'string', value: 'PATH', description: 'replay against this prebuilt workflow bundle instead of bundling workflows/' } },
    load: async () => (await import('./replay.js')).replay,
  },
];
