// Replays a run's history against the current workflow code: the check to run before
// deploying a change to the workflow or the controller. The history comes through AgentClient
// (an unknown run is RunNotFoundError); the replay itself needs the worker package.
import { dataConverterFromEnv } from '../../worker/payload-codec.js';
import { CliError } from '../usage.js';
import type { CommandRun } from './types.js';

export const replay: CommandRun = async (ctx, args, flags) => {
  const runId = args.run ?? '';
  const history = await (await ctx.agent()).history(runId);
  const events = history.events?.length ?? 0;
  // Loaded here only: the worker package is heavy and no other command needs it.
  const { DefaultLogger, Runtime, Worker } = await import('@temporalio/worker');
  const { bundleWorkflows } = await import('../../worker/bundle.js');
  // The failure is reported once, below; the runtime's own log lines would only repeat it.
  const debug = ctx.env.AGENT_CLI_DEBUG === '1';
  // Core's own log lines are forwarded to that logger instead of going straight to stderr.
  Runtime.install({
    logger: new DefaultLogger('WARN', debug ? (e) => process.stderr.write(`${e.level} ${e.message}\n`) : () => {}),
    telemetryOptions: { logging: { filter: 'WARN', forward: {} } },
  });
  const prebuilt = flags.str('bundle');
  if (!prebuilt && !ctx.workflowsPath) throw new CliError('replay needs --bundle PATH (this CLI was built without a workflows module)');
  const workflowBundle = prebuilt ? { codePath: prebuilt } : await bundleWorkflows(ctx.workflowsPath ?? '');
  try {
    // An encrypted history replays with the workers' codec (AGENT_PAYLOAD_KEYS).
    const dataConverter = dataConverterFromEnv(ctx.env);
    await Worker.runReplayHistory({ workflowBundle, replayName: `cli-replay-${runId}`, ...(dataConverter ? { dataConverter } : {}) }, history, runId);
  } catch (err) {
    throw new CliError(`replay of ${runId} failed (${events} events): ${replayFailure(err)}`);
  }
  if (ctx.json) ctx.out(JSON.stringify({ runId, ok: true, events }));
  else ctx.out(`replay ok: ${runId} (${events} events) matches ${prebuilt ?? 'the current workflow code'}`);
};

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
