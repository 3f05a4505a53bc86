// The operator command line, as a function your own entry calls with your domains:
// `await runCli({ domains, workflowsPath })` (the examples' entry is domains/cli.ts).
// Every command that talks to a run goes through AgentClient (client/agent-client.ts); this file
// only parses, dispatches and turns errors into exit codes.
// Parsing is strict: an unknown command, flag or missing argument is a usage error (exit 2);
// anything the run or the server refuses is exit 1. Either way exactly one line
// `error: <message>` goes to stderr, never a stack trace.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { AgentClient } from './agent-client.js';
import { commands } from './commands/index.js';
import { Flags, type CommandContext, type CommandSpec, type OptionSpec } from './commands/types.js';
import { oneLine, UsageError } from './usage.js';
import type { Domain } from '../workflows/contract.js';

const commonOptions: Record<string, OptionSpec> = {
  json: { type: 'boolean', description: 'machine-readable output' },
  help: { type: 'boolean', short: 'h', description: 'show usage' },
};

function commandUsage(spec: CommandSpec): string {
  const args = spec.args.map((a) => `<${a}>`).join(' ');
  const flags = Object.entries(spec.options).map(([name, o]) => (o.type === 'string' ? `[--${name} ${o.value ?? 'VALUE'}]` : `[--${name}]`));
  return ['agent', spec.name, args, ...flags, '[--json]'].filter(Boolean).join(' ');
}

function usage(): string {
  const lines = ['usage: agent <command> [arguments] [--json]', '', 'commands:'];
  const width = Math.max(...commands.map((c) => c.name.length));
  for (const c of commands) lines.push(`  ${c.name.padEnd(width)}  ${c.summary}`);
  lines.push('', 'Run `agent <command> --help` for its arguments and flags.');
  lines.push('Connection: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY or TEMPORAL_PROFILE; task queue: AGENT_TASK_QUEUE.');
  return lines.join('\n');
}

function helpFor(spec: CommandSpec): string {
  const lines = [`usage: ${commandUsage(spec)}`, '', spec.summary];
  const options = { ...spec.options, ...commonOptions };
  const names = Object.entries(options).map(([name, o]) => [`--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`, o.description] as const);
  const width = Math.max(...names.map(([n]) => n.length));
  lines.push('', 'options:', ...names.map(([n, d]) => `  ${n.padEnd(width)}  ${d}`));
  return lines.join('\n');
}

function parse(spec: CommandSpec, argv: string[]): { args: Record<string, string>; flags: Flags; json: boolean; help: boolean } {
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
      if (value === undefined || value === '') throw new UsageError(`${spec.name}: missing <${key}> (usage: ${commandUsage(spec)})`);
      args[key] = value;
    });
    const variadic = spec.args.at(-1)?.endsWith('...') ?? false;
    const extra = positionals[spec.args.length];
    if (!variadic && extra !== undefined) throw new UsageError(`${spec.name}: unexpected argument '${extra}'`);
  }
  return { args, flags: new Flags(values), json: values.json === true, help };
}

export interface CliConfig {
  /** Your domains: `start` checks the domain and its case id before a run exists. */
  domains?: readonly Domain[];
  /** Your workflows module, for `replay` (or pass --bundle). */
  workflowsPath?: string;
}

async function main(argv: string[], connected: { current?: AgentClient }, config: CliConfig): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) throw new UsageError('missing command (try agent --help)');
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  const spec = commands.find((c) => c.name === name);
  if (!spec) {
    throw new UsageError(
      name.startsWith('-') ? `expected a command before ${name} (try agent --help)` : `unknown command '${name}' (commands: ${commands.map((c) => c.name).join(', ')})`,
    );
  }
  const { args, flags, json, help } = parse(spec, rest);
  if (help) {
    process.stdout.write(`${helpFor(spec)}\n`);
    return 0;
  }
  let agent: Promise<AgentClient> | undefined;
  const ctx: CommandContext = {
    json,
    env: process.env,
    domains: config.domains,
    workflowsPath: config.workflowsPath,
    out: (line) => void process.stdout.write(`${line}\n`),
    // Loaded and connected only by a command that needs it: usage errors answer at once.
    agent: () =>
      (agent ??= import('./agent-client.js')
        .then(({ AgentClient }) => AgentClient.connect(config.domains ? { domains: config.domains } : {}))
        .then((a) => {
          connected.current = a;
          return a;
        })),
  };
  const run = await spec.load();
  return (await run(ctx, args, flags)) ?? 0;
}

function exitCodeFor(err: unknown): number {
  // InvalidRequestError and InvalidRunInputError (agent-errors.ts) are usage errors too.
  return err instanceof UsageError ? 2 : 1;
}

/** The one line for an error; Temporal's error classes are loaded only when one is needed. */
async function describe(err: unknown): Promise<string> {
  if (err instanceof UsageError) return oneLine(err.message);
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

  const connected: { current?: AgentClient } = {};
  let code: number;
  try {
    code = await main(process.argv.slice(2), connected, config);
  } catch (err) {
    process.stderr.write(`error: ${await describe(err)}\n`);
    code = exitCodeFor(err);
  }
  await connected.current?.close().catch(() => {});
  // Let stdout drain (it may be a pipe), then leave even if a native runtime is still up.
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code);
}
