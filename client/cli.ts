// The operator command line, as a function your own entry calls with your domains:
// `await runCli({ domains, workflowsPath, programName })` (the examples' entry is domains/cli.ts;
// the package's `agent` bin, client/bin.ts, runs it with no domains). Every hint it prints names
// `programName`, so what an operator is told to type is the command they actually have.
// Every command that talks to a run goes through AgentClient (client/agent-client.ts); this file
// only parses, dispatches and turns errors into exit codes.
// Parsing is strict: an unknown command, flag or missing argument is a usage error (exit 2);
// anything the run or the server refuses is exit 1. Either way exactly one line
// `error: <message>` goes to stderr, never a stack trace.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { AgentClient } from './agent-client.js';
import { commands } from './commands/index.js';
import { Flags, type CommandContext, type CommandSpec, type OptionSpec } from './commands/types.js';
import { AgentError } from '../workflows/agent-error.js';
import { InvalidRequestError } from './agent-errors.js';
import { oneLine, UsageError } from './usage.js';
import type { Domain } from '../workflows/contract.js';

const commonOptions: Record<string, OptionSpec> = {
  json: { type: 'boolean', description: 'machine-readable output' },
  help: { type: 'boolean', short: 'h', description: 'show usage' },
};

/** What the usage texts need to know about the CLI they describe. */
interface Shown {
  program: string;
  /** False for a CLI built without domains (the `agent` bin): start cannot check them. */
  knowsDomains: boolean;
}

function commandUsage(spec: CommandSpec, program: string): string {
  const args = spec.args.map((a) => `<${a}>`).join(' ');
  const flag = (name: string, o: OptionSpec) => (o.type === 'string' ? `--${name} ${o.value ?? 'VALUE'}` : `--${name}`);
  // Required flags first and without brackets: the usage line must not suggest they can be left out.
  const entries = Object.entries(spec.options);
  const required = entries.filter(([, o]) => o.required).map(([name, o]) => flag(name, o));
  const optional = entries.filter(([, o]) => !o.required).map(([name, o]) => `[${flag(name, o)}]`);
  return [program, spec.name, args, ...required, ...optional, '[--json]'].filter(Boolean).join(' ');
}

const NO_DOMAINS_NOTE =
  "This CLI was built without domains: start sends the domain and case id as given, and the worker refuses a domain it does not serve or a case id its domain does not accept (the run then fails at once); it starts runs on AGENT_TASK_QUEUE, else agent-runs, so set that to your worker's queue (agents-<its domains>). Build your own entry with runCli({ domains }) to refuse them before a run exists and derive the queue.";

function usage(shown: Shown): string {
  const { program } = shown;
  const lines = [`usage: ${program} <command> [arguments] [--json]`, '', 'commands:'];
  const width = Math.max(...commands.map((c) => c.name.length));
  for (const c of commands) lines.push(`  ${c.name.padEnd(width)}  ${c.summary}`);
  lines.push('', `Run \`${program} <command> --help\` for its arguments and flags.`);
  const queue = shown.knowsDomains ? 'AGENT_TASK_QUEUE, else agents-<the domains, sorted>' : 'AGENT_TASK_QUEUE, else agent-runs';
  lines.push(`Connection: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY or TEMPORAL_PROFILE; task queue for start: ${queue}.`);
  lines.push(
    `Runs on that queue${shown.knowsDomains ? ", on each domain's own (agents-<domain>)" : ''} and on AGENT_TASK_QUEUES (comma-separated: the team's other queues) are this engine's.`,
  );
  if (!shown.knowsDomains) lines.push(NO_DOMAINS_NOTE);
  return lines.join('\n');
}

function helpFor(spec: CommandSpec, shown: Shown): string {
  const lines = [`usage: ${commandUsage(spec, shown.program)}`, '', spec.summary];
  if (spec.name === 'start' && !shown.knowsDomains) lines.push('', NO_DOMAINS_NOTE);
  const options = { ...spec.options, ...commonOptions };
  const names = Object.entries(options).map(
    ([name, o]) =>
      [
        `--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`,
        `${o.required ? '(required) ' : ''}${o.description.replaceAll('{program}', shown.program)}`,
      ] as const,
  );
  const width = Math.max(...names.map(([n]) => n.length));
  lines.push('', 'options:', ...names.map(([n, d]) => `  ${n.padEnd(width)}  ${d}`));
  return lines.join('\n');
}

function parse(spec: CommandSpec, argv: string[], program: string): { args: Record<string, string>; flags: Flags; json: boolean; help: boolean } {
  const options: ParseArgsConfig['options'] = {};
  for (const [name, o] of Object.entries({ ...spec.options, ...commonOptions })) {
    options[name] = { type: o.type, ...(o.short ? { short: o.short } : {}) };
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (err) {
    // Node's messages go on to explain `--` at length; the first sentence is the point.
    const message = err instanceof Error ? (err.message.split('\n')[0] ?? '').replace(/\. To specify a positional argument.*$/, '') : String(err);
    throw new UsageError(`${spec.name}: ${message}`);
  }
  const { values, positionals } = parsed;
  const help = values.help === true;
  const args: Record<string, string> = {};
  if (!help) {
    spec.args.forEach((name, i) => {
      const variadic = name.endsWith('...');
      const key = variadic ? name.slice(0, -3) : name;
      const value = variadic ? positionals.slice(i).join(' ') : positionals[i];
      if (value === undefined || value === '') throw new UsageError(`${spec.name}: missing <${key}> (usage: ${commandUsage(spec, program)})`);
      args[key] = value;
    });
    const variadic = spec.args.at(-1)?.endsWith('...') ?? false;
    const extra = positionals[spec.args.length];
    if (!variadic && extra !== undefined) throw new UsageError(`${spec.name}: unexpected argument '${extra}'`);
  }
  return { args, flags: new Flags(values), json: values.json === true, help };
}

/** What runCli takes: your domains, your workflows module (for `replay`), and how operators invoke it. */
export interface CliConfig {
  /** Your domains: `start` checks the domain and its case id before a run exists. */
  domains?: readonly Domain[];
  /** Your workflows module, for `replay` (or pass --bundle). */
  workflowsPath?: string;
  /**
   * How an operator invokes this CLI, as usage and error hints print it: `agent` (the default,
   * the package's bin), `npm run cli --`, `./ops/agent`... Every "try ..." names it.
   */
  programName?: string;
}

/**
 * Where one invocation reads and writes: the process's own for `runCli`; a caller's for
 * `cliMain` (tests call the CLI in their own process this way, against a real server).
 */
export interface CliIO {
  /** The arguments after the program: `['status', 'orders-O-1001', '--json']`. */
  argv: readonly string[];
  /** Connection settings, AGENT_* settings and $USER are read here, never from process.env. */
  env: NodeJS.ProcessEnv;
  /** Text for standard output and standard error, written as given (lines end in `\n`). */
  stdout(text: string): void;
  stderr(text: string): void;
}

async function main(io: CliIO, connected: { current?: AgentClient }, config: CliConfig): Promise<number> {
  const shown: Shown = { program: programOf(config), knowsDomains: config.domains !== undefined };
  const { program } = shown;
  const [name, ...rest] = io.argv;
  if (name === undefined) throw new UsageError(`missing command (try ${program} --help)`);
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout(`${usage(shown)}\n`);
    return 0;
  }
  const spec = commands.find((c) => c.name === name);
  if (!spec) {
    throw new UsageError(
      name.startsWith('-')
        ? `expected a command before ${name} (try ${program} --help)`
        : `unknown command '${name}' (commands: ${commands.map((c) => c.name).join(', ')}; try ${program} --help)`,
    );
  }
  const { args, flags, json, help } = parse(spec, rest, program);
  if (help) {
    io.stdout(`${helpFor(spec, shown)}\n`);
    return 0;
  }
  let agent: Promise<AgentClient> | undefined;
  const ctx: CommandContext = {
    json,
    program,
    env: io.env,
    domains: config.domains,
    workflowsPath: config.workflowsPath,
    out: (line) => io.stdout(`${line}\n`),
    err: (line) => io.stderr(`${line}\n`),
    // Loaded and connected only by a command that needs it: usage errors answer at once.
    agent: () =>
      (agent ??= import('./agent-client.js')
        .then(({ AgentClient }) => AgentClient.connect({ env: io.env, ...(config.domains ? { domains: config.domains } : {}) }))
        .then((a) => {
          connected.current = a;
          return a;
        })),
  };
  const run = await spec.load();
  return (await run(ctx, args, flags)) ?? 0;
}

function programOf(config: CliConfig): string {
  const name = config.programName?.trim();
  return name ? name : 'agent';
}

function exitCodeFor(err: unknown): number {
  // A request AgentClient refused as wrong in itself is the operator's mistake, as a bad flag is.
  return UsageError.isInstance(err) || InvalidRequestError.isInstance(err) ? 2 : 1;
}

/** The one line for an error; Temporal's error classes are loaded only when one is needed. */
async function describe(err: unknown): Promise<string> {
  // The engine's own errors are already the one line; only others need Temporal's unwrapping.
  if (AgentError.isInstance(err)) return oneLine(err.message);
  try {
    return (await import('./errors.js')).describeError(err);
  } catch {
    return oneLine(err instanceof Error ? err.message : String(err));
  }
}

function fail(err: unknown): void {
  void describe(err).then((message) => {
    process.stderr.write(`error: ${message}\n`);
    process.exit(exitCodeFor(err));
  });
}

/**
 * Runs one command and resolves with its exit code: 0, 1 when the run or the server refused,
 * 2 for a usage error. Errors are the one line `error: <message>` on `io.stderr`; it never exits
 * the process or touches its streams, so it can be called many times in one process.
 */
export async function cliMain(io: CliIO, config: CliConfig = {}): Promise<number> {
  const connected: { current?: AgentClient } = {};
  let code: number;
  try {
    code = await main(io, connected, config);
  } catch (err) {
    io.stderr(`error: ${await describe(err)}\n`);
    code = exitCodeFor(err);
  }
  await connected.current?.close().catch(() => {});
  return code;
}

/** Runs one CLI command from process.argv and exits with its code. */
export async function runCli(config: CliConfig = {}): Promise<never> {
  // Whatever escapes (a rejection from a library's background work) is still one line.
  process.on('uncaughtException', fail);
  // `agent list | head` closing the pipe early is not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    fail(err);
  });
  process.on('unhandledRejection', fail);

  const code = await cliMain(
    { argv: process.argv.slice(2), env: process.env, stdout: (text) => void process.stdout.write(text), stderr: (text) => void process.stderr.write(text) },
    config,
  );
  // Let stdout drain (it may be a pipe), then leave even if a native runtime is still up.
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code);
}
