// Replays a run's history against workflow code: the check to run before deploying a change
// to the workflow or the controller. The history comes through AgentClient (an unknown run is
// RunNotFoundError), or from a history JSON file (`temporal workflow show --output json`, the
// Web UI's download), which needs no server. The code is the workflows module given with
// --workflows (bundled here, the way a worker given workflowsPath bundles it), a prebuilt bundle
// (--bundle), or the module the CLI was built with. The replay itself needs the worker package.
import { existsSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { dataConverterFromEnv } from '../../worker/payload-codec.js';
import { CliError, UsageError } from '../usage.js';
import type { CommandRun } from './types.js';

export const replay: CommandRun = async (ctx, args, flags) => {
  const target = args.run ?? '';
  const code = workflowCode(flags.str('workflows'), flags.str('bundle'), ctx.workflowsPath, ctx.program);
  const fromFile = target.endsWith('.json');
  if (fromFile && !existsSync(target)) throw new UsageError(`replay: no history file ${target}`);
  const history: unknown = fromFile ? readHistoryFile(target) : await (await ctx.agent()).history(target);
  // The workflow checks its own id (a case's run has one id), so a file replays under the id it
  // records; a history from a server too old to record it is named after the file.
  const runId = fromFile ? (recordedWorkflowId(history) ?? basename(target, '.json')) : target;
  const events = (history as { events?: unknown[] }).events?.length ?? 0;
  // Loaded here only: the worker package is heavy and no other command needs it.
  const { DefaultLogger, Runtime, Worker } = await import('@temporalio/worker');
  const { IllegalStateError } = await import('@temporalio/common');
  const { bundleWorkflows } = await import('../../worker/bundle.js');
  // The failure is reported once, below; the runtime's own log lines would only repeat it.
  const debug = ctx.env.AGENT_CLI_DEBUG === '1';
  // Core's own log lines are forwarded to that logger instead of going straight to stderr. A
  // process that already runs workers (cliMain called beside them) keeps the runtime it has.
  try {
    Runtime.install({
      logger: new DefaultLogger('WARN', debug ? (e) => ctx.err(`${e.level} ${e.message}`) : () => {}),
      telemetryOptions: { logging: { filter: 'WARN', forward: {} } },
    });
  } catch (err) {
    if (!(err instanceof IllegalStateError)) throw err;
  }
  let workflowBundle;
  try {
    workflowBundle = code.kind === 'bundle' ? { codePath: code.path } : await bundleWorkflows(code.path);
  } catch (err) {
    throw new CliError(`could not ${code.kind === 'bundle' ? 'read the bundle' : 'bundle the workflows module'} ${code.path}: ${firstLine(err)}`);
  }
  try {
    // An encrypted history replays with the workers' codec (AGENT_PAYLOAD_KEYS).
    const dataConverter = dataConverterFromEnv(ctx.env);
    await Worker.runReplayHistory({ workflowBundle, replayName: `cli-replay-${runId}`, ...(dataConverter ? { dataConverter } : {}) }, history, runId);
  } catch (err) {
    throw new CliError(`replay of ${runId} failed (${events} events): ${replayFailure(err)}`);
  }
  if (ctx.json) ctx.out(JSON.stringify({ runId, ok: true, events }));
  else ctx.out(`replay ok: ${runId} (${events} events) matches ${code.shown}`);
};

type WorkflowCode = { kind: 'module' | 'bundle'; path: string; shown: string };

/** Which code to replay against: --workflows, --bundle, or the CLI's own module; a missing file is a usage error. */
function workflowCode(workflows: string | undefined, bundle: string | undefined, builtWith: string | undefined, program: string): WorkflowCode {
  if (workflows !== undefined && bundle !== undefined) throw new UsageError('replay: give --workflows or --bundle, not both');
  const given = workflows ?? bundle;
  if (given !== undefined) {
    const path = resolve(given);
    if (!existsSync(path)) throw new UsageError(`replay: no such file ${given}`);
    return workflows !== undefined ? { kind: 'module', path, shown: `the workflows module ${given}` } : { kind: 'bundle', path, shown: `the bundle ${given}` };
  }
  if (builtWith) return { kind: 'module', path: builtWith, shown: 'the current workflow code' };
  throw new UsageError(
    `replay needs the workflow code: --workflows MODULE (the workflows module your worker's workflowsPath names, e.g. ${program} replay --workflows workflows.ts <run>)`,
  );
}

/** A history JSON file, parsed; what the replayer cannot read as a history is a usage error. */
function readHistoryFile(path: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`replay: ${path} is not JSON: ${firstLine(err)}`);
  }
  const events = (parsed as { events?: unknown } | null)?.events;
  if (!Array.isArray(events) || events.length === 0)
    throw new UsageError(`replay: ${path} is not a workflow history (expected {"events":[...]}, as temporal workflow show --output json writes it)`);
  return parsed;
}

function recordedWorkflowId(history: unknown): string | undefined {
  const first = (history as { events?: { workflowExecutionStartedEventAttributes?: { workflowId?: unknown } }[] }).events?.[0];
  const id = first?.workflowExecutionStartedEventAttributes?.workflowId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
}

/**
 * The reason, without the wrapping: core reports the workflow task's failure as a debug dump
 * (`Failure { failure: Some(Failure { message: "...", stack_trace: "..." ...`); the first
 * message in it is what an operator needs, the stack trace is not.
 */
export function replayFailure(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const kind = err.name === 'DeterminismViolationError' ? 'nondeterminism' : err.name;
  const inner = /message: "((?:[^"\\]|\\.)*)"/.exec(err.message)?.[1];
  const reason = inner ? inner.replace(/\\n/g, ' ').replace(/\\"/g, '"') : (err.message.split('. Details:')[0] ?? err.message);
  return `${kind}: ${reason}`;
}
