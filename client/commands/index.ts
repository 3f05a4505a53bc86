// Every command's arguments, flags and one-line summary. The implementations are imported
// only when a command runs, so `--help` and usage errors answer at once. `{program}` in a
// description is replaced by how this CLI is invoked (`agent`, `npm run cli --`).
import { asOption, type CommandSpec, type OptionSpec } from './types.js';

const PHASES = 'running|awaiting_approval|reconciling|terminal';
const TERMINALS = 'resolved|escalated|budget_exhausted|blocked|unknown_outcome|cancelled|failed';

const keyOption: OptionSpec = { type: 'string', value: 'FILE', description: 'your key file (`{program} keys generate` makes one)' };

// Approve and deny take the same flags: whose key signs, why, and for how long the signature holds.
const decisionOptions: Record<string, OptionSpec> = {
  key: {
    ...keyOption,
    required: true,
    description: "your key file (`{program} keys generate` makes one); its id must hold one of the roles in the worker's approver directory",
  },
  comment: { type: 'string', value: 'C', description: 'why' },
  'valid-for': { type: 'string', value: 'SECONDS', description: 'how long the signed decision may be used (default 600, at most 86400)' },
};

export const commands: CommandSpec[] = [
  {
    name: 'start',
    args: ['domain', 'case'],
    summary: 'start the run for a case, or attach to the one that exists',
    options: {
      model: { type: 'string', value: 'rules|openai[:NAME]', description: 'which model proposes (default: rules)' },
      shape: {
        type: 'string',
        value: 'workflow|hybrid|react|plan',
        description: "who decides the steps: the domain's route, the route then the model, the model (default), or the model's plan",
      },
      turns: { type: 'string', value: 'N', description: 'turn budget' },
      'deadline-ms': { type: 'string', value: 'N', description: 'run deadline in milliseconds' },
      'approval-timeout-ms': { type: 'string', value: 'N', description: 'how long an approval request waits' },
      'model-outage-ms': { type: 'string', value: 'N', description: 'how long the run waits out a model endpoint that does not answer (default 5 minutes)' },
      approvers: { type: 'string', value: 'ID,ID', description: "only these ids of the worker's approver directory may approve (it can only narrow)" },
      effects: { type: 'string', value: 'none|TOOL,TOOL', description: 'only these effects may run (none: an investigation that only reads)' },
      key: { ...keyOption, description: 'sign the start with your key (a contract may then refuse you as the approver)' },
      request: {
        type: 'string',
        value: 'TEXT',
        description: 'what you ask for, signed with --key: the model reads it from the first turn (its words vouch for no payee or amount)',
      },
      'request-fields': {
        type: 'string',
        value: 'JSON',
        description: 'typed values your request states, by kind (\'{"payee":"US12…","amount":50}\'), signed with it: each vouches for an argument of its kind',
      },
      'task-queue': { type: 'string', value: 'Q', description: "start on this task queue (default: AGENT_TASK_QUEUE, else the CLI's own)" },
      force: { type: 'boolean', description: 'start even though no worker polls the task queue (the run waits for one)' },
    },
    load: async () => (await import('./start.js')).start,
  },
  {
    name: 'clear',
    args: ['run'],
    summary: 'free a case whose run can never be served: terminate it, recorded as cleared, so the case can start again',
    options: {
      reason: { type: 'string', value: 'R', required: true, description: 'why (recorded in the termination reason)' },
      as: asOption,
      force: { type: 'boolean', description: 'clear it even though a worker polls its queue or has already run it (the case may then run twice)' },
    },
    load: async () => (await import('./clear.js')).clear,
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
    name: 'amend',
    args: ['run', 'request'],
    summary: 'ask for the pending effect with other arguments: a new request, approved afresh',
    options: {
      ...decisionOptions,
      args: { type: 'string', value: 'JSON', required: true, description: 'the arguments the call should have instead, as a JSON object' },
    },
    load: async () => (await import('./approvals.js')).amend,
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
    summary: 'add a note to a run; signed with --key it is trusted, otherwise the model reads it as untrusted text',
    options: {
      key: { ...keyOption, description: 'sign the note with your key file (trusted operator text)' },
      as: { ...asOption, description: 'who is writing, for an unsigned note (default: $USER)' },
    },
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
    name: 'verify',
    args: ['export'],
    summary: "check an export's effects and signed approvals offline against an approver directory",
    options: {
      directory: { type: 'string', value: 'FILE', required: true, description: 'the approver directory ({"approvers":[...]}) to verify against' },
      'require-approval': {
        type: 'string',
        value: 'TOOL,TOOL',
        description: "effects of these tools must have signed approvals, whatever the export's approvalTools says",
      },
      'min-rule-set': { type: 'string', value: 'engine-vN', description: 'refuse exports of an older rule set (or of none)' },
      'accept-unversioned': { type: 'boolean', description: 'accept an export that names no rule set (refused by default)' },
    },
    load: async () => (await import('./verify.js')).verify,
  },
  {
    name: 'keys',
    args: ['action'],
    summary: "keys generate: make an approver's key file and print its directory entry",
    options: {
      id: { type: 'string', value: 'ID', required: true, description: 'the directory id the key signs as, e.g. alice@ops' },
      out: {
        type: 'string',
        value: 'FILE',
        required: true,
        description: 'where to write the private key file, mode 600; an existing file is never overwritten',
      },
      roles: { type: 'string', value: 'R1,R2', description: 'roles for the printed directory entry, e.g. payments-approver' },
    },
    load: async () => (await import('./keys.js')).keys,
  },
  {
    name: 'alerts',
    args: [],
    summary: "receive Alertmanager's webhook: each alert group starts one run (secret: AGENT_ALERTS_TOKEN or AGENT_ALERTS_BASIC)",
    options: {
      mapping: {
        type: 'string',
        value: 'FILE',
        required: true,
        description: 'a module exporting mapAlertGroup(group): the domain and case for an alert group',
      },
      port: { type: 'string', value: 'N', description: 'port to listen on (default 9095)' },
      host: { type: 'string', value: 'HOST', description: 'address to listen on (default 127.0.0.1)' },
    },
    load: async () => (await import('./alerts.js')).alerts,
  },
  {
    name: 'alert-rules',
    args: [],
    summary: "write Prometheus' rule file from your alert rules (a module exporting alertRules), so Prometheus and your domain share one source",
    options: {
      rules: { type: 'string', value: 'FILE', required: true, description: 'a .js or .ts module exporting alertRules: AlertRule[]' },
      out: { type: 'string', value: 'FILE', description: 'write here (default: standard output); name it in rule_files' },
      group: { type: 'string', value: 'NAME', description: 'the rule group (default agent-alerts)' },
    },
    load: async () => (await import('./alerts.js')).alertRules,
  },
  {
    name: 'replay',
    args: ['run'],
    summary: "replay a run's history (by run id, or a history JSON file) against the workflow code",
    options: {
      workflows: {
        type: 'string',
        value: 'MODULE',
        description: "bundle this workflows module (the file your worker's workflowsPath names) and replay against it",
      },
      bundle: { type: 'string', value: 'PATH', description: 'replay against this prebuilt workflow bundle (code, as bundleWorkflowCode writes it)' },
    },
    load: async () => (await import('./replay.js')).replay,
  },
  {
    name: 'console',
    args: [],
    summary: "serve the operators' web console on loopback",
    options: {
      address: { type: 'string', value: 'HOST:PORT', description: 'the Temporal server (default: TEMPORAL_ADDRESS, else 127.0.0.1:7233)' },
      namespace: { type: 'string', value: 'NS', description: 'its namespace (default: TEMPORAL_NAMESPACE, else default)' },
      port: { type: 'string', value: 'N', description: 'the port on 127.0.0.1 (default: AGENT_CONSOLE_PORT, else 4200; 0 picks a free one)' },
      domains: { type: 'string', value: 'D,D', description: 'the domains the runs page offers as filters (default: those this CLI was built with)' },
    },
    load: async () => (await import('./console.js')).consoleCommand,
  },
];
