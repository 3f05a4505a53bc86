/**
 * `bounded-react-temporal/cli`: the operator command line as a function, for a team that wants
 * its own `agent` command that knows its domains (the package's `agent` bin knows none: its
 * `start` leaves the domain and case-id checks to the worker, and `replay` needs `--bundle`).
 * Every command goes through `AgentClient`; errors print as one line `error: <message>`, exit 2
 * for a usage error and 1 for anything the run or the server refuses.
 *
 * @example
 * ```ts
 * // agent.ts, beside domain.ts: `npx tsx agent.ts status orders-O-1001`
 * import { runCli } from 'bounded-react-temporal/cli';
 * import { orders } from './domain.js';
 *
 * await runCli({ domains: [orders], workflowsPath: new URL('./domain.js', import.meta.url).pathname, programName: 'npx tsx agent.ts' });
 * ```
 *
 * `cliMain(io, config)` is the same CLI as a function of its arguments, environment and output
 * streams that resolves with the exit code instead of exiting: for a test, or a tool of your own
 * that runs commands in its process.
 *
 * @module
 */
export { cliMain, runCli, type CliConfig, type CliIO } from './cli.js';
export { CliError, UsageError } from './usage.js';
