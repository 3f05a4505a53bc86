// Every error a team can meet is one family: exported from the package's entries, rooted in
// AgentError, and recognised by `isInstance` from another copy of the engine (another bundle,
// another realm), where `instanceof` says no. The client's errors stand apart from the CLI's, so
// a program using AgentClient is never handed a command line's error class.
import { runInNewContext } from 'node:vm';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as cliEntry from '../../client/cli-public.js';
import * as clientEntry from '../../client/public.js';
import * as workerEntry from '../../worker/public.js';
import * as workflowEntry from '../../workflows/public.js';

const { AgentError, AgentWorkerError } = workerEntry;
const { AgentClientError, InvalidRequestError, RunEndedError, RunNotFoundError } = clientEntry;
const { CliError, UsageError } = cliEntry;

type ErrorClass = (abstract new (...args: never[]) => Error) & { errorName?: string; isInstance?: (value: unknown) => boolean };

/** The constructor's arguments for each exported error, as the engine passes them; a new export must be added here. */
const ARGS: Record<string, unknown[]> = {
  AgentError: ['x'],
  DomainDefinitionError: ['orders', ['read_order: no input']],
  OlderRuleSetError: ['a history was written under an older rule set'],
  AgentWorkerError: ['x'],
  ToolRefused: ['no such order', 'order_not_found'],
  ToolUnavailable: ['503', true],
  DeploymentConfigError: ['worker deployment: buildId is empty'],
  ActivityNameTakenError: [['callTool']],
  TaskQueueSharedError: ['agents-orders', ['orders'], []],
  RuntimeInstalledError: [new Error('installed')],
  WorkerEnvError: ['AGENT_PAYLOAD_KEYS', 'no such file'],
  McpConfigError: ['an MCP source needs a name'],
  PayloadDecryptError: ['k1', 'authentication failed'],
  UnknownPayloadKeyError: ['k0', ['k1']],
  PayloadKeyRingError: ['keys.json', 'not JSON'],
  CodecServerConfigError: ['codec server: no token'],
  QuarantineMissingError: [],
  WorkerOptionError: [{ where: 'createAgentWorker', option: 'spend', replacement: 'agentSpendPlugin', message: 'removed' }],
  AgentClientError: ['run-1', 'x'],
  InvalidRequestError: ['a note needs an author'],
  InvalidRunInputError: ['unknown domain'],
  RunNotFoundError: ['run-1'],
  RunEndedError: ['run-1'],
  WorkerTimeoutError: ['run-1', 'state query', 5_000, 'no answer'],
  RequestNotPendingError: ['run-1', 'req-1', 'not pending'],
  RequestRejectedError: ['run-1', 'approve', 'bob may not decide'],
  RunSettingsConflictError: ['run-1', 'orders', 'O-1', ['model'], true],
  RunClosedWithoutTerminalError: ['run-1', 'TERMINATED'],
  RunUnavailableError: ['run-1', 'no_poller', 'agents-orders', 'no worker'],
  ClientOptionError: [{ where: 'AgentClient', option: 'queryTimeout', replacement: undefined, message: 'no option' }],
  CliError: ['x'],
  UsageError: ['x'],
};

/** One instance of the class, made with its arguments from ARGS. */
function make(name: string, cls: ErrorClass): Error {
  return new (cls as unknown as new (...args: unknown[]) => Error)(...(ARGS[name] ?? []));
}

/** Every exported class whose instances are Errors, by entry. */
function errorClasses(entry: Record<string, unknown>): Array<[string, ErrorClass]> {
  return Object.entries(entry).filter((pair): pair is [string, ErrorClass] => typeof pair[1] === 'function' && pair[1].prototype instanceof Error);
}

const ENTRIES = { workflow: workflowEntry, worker: workerEntry, client: clientEntry, cli: cliEntry } as Record<string, Record<string, unknown>>;
const ALL = Object.entries(ENTRIES).flatMap(([entry, exports]) => errorClasses(exports).map(([name, cls]) => ({ entry, name, cls })));

describe('the error family', () => {
  it('finds the errors of every entry, each one an AgentError named once, for itself', () => {
    expect(ALL.length).toBeGreaterThanOrEqual(25);
    for (const { entry, name, cls } of ALL) {
      expect(ARGS[name], `${entry}: ${name} is exported but the test does not know how to make one`).toBeDefined();
      const err = make(name, cls);
      expect(err, `${entry}: ${name}`).toBeInstanceOf(cls);
      expect(AgentError.isInstance(err), `${entry}: ${name} is not an AgentError`).toBe(true);
      expect(cls.isInstance?.(err), `${entry}: ${name}.isInstance`).toBe(true);
      expect(err.name).toBe(name);
      expect(err.message).not.toBe('');
    }
    for (const { entry, name, cls } of ALL) {
      expect(cls === AgentError || cls.prototype instanceof AgentError, `${entry}: ${name} does not extend AgentError`).toBe(true);
      expect(Object.hasOwn(cls, 'errorName') && cls.errorName, `${entry}: ${name} declares no errorName of its own`).toBe(name);
    }
  });

  it('puts each worker error under AgentWorkerError, but not the two answers a tool gives', () => {
    for (const { name, cls } of ALL.filter((c) => c.entry === 'worker' && c.name !== 'AgentError')) {
      const underWorker = cls === AgentWorkerError || cls.prototype instanceof AgentWorkerError;
      expect(underWorker, name).toBe(name !== 'ToolRefused' && name !== 'ToolUnavailable');
    }
  });

  it('answers isInstance for the class and its ancestors, never for a sibling', () => {
    const gone = new RunNotFoundError('run-1');
    expect(RunNotFoundError.isInstance(gone)).toBe(true);
    expect(AgentClientError.isInstance(gone)).toBe(true);
    expect(AgentError.isInstance(gone)).toBe(true);
    expect(RunEndedError.isInstance(gone)).toBe(false);
    expect(InvalidRequestError.isInstance(gone)).toBe(false);
    expect(AgentWorkerError.isInstance(gone)).toBe(false);
    expect(AgentError.isInstance(new Error('plain'))).toBe(false);
    expect(AgentError.isInstance(undefined)).toBe(false);
    expect(AgentError.isInstance('RunNotFoundError')).toBe(false);
  });

  it('goes by the registered marker: a marked plain object is one, a look-alike Error is not', () => {
    const marked = { [Symbol.for('bounded-react-temporal.error.RunNotFoundError')]: true };
    expect(RunNotFoundError.isInstance(marked)).toBe(true);
    expect(RunEndedError.isInstance(marked)).toBe(false);
    const lookalike = Object.assign(new Error('run run-1 not found'), { name: 'RunNotFoundError', runId: 'run-1' });
    expect(RunNotFoundError.isInstance(lookalike)).toBe(false);
    expect(AgentError.isInstance(lookalike)).toBe(false);
  });

  it('recognises an error made by another copy of the engine in another realm, where instanceof fails', () => {
    // The root's own source, compiled and evaluated in a fresh vm context: another copy of the
    // class in another realm, as a second bundle or package copy would make it.
    const source = readFileSync(new URL('../../workflows/agent-error.ts', import.meta.url), 'utf8');
    const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
    const foreign = runInNewContext(
      `const exports = {}; ${js}; class RunNotFoundError extends exports.AgentError { static errorName = 'RunNotFoundError' } new RunNotFoundError('run run-1 not found')`,
    ) as Error;
    expect(foreign instanceof Error).toBe(false);
    expect(foreign instanceof RunNotFoundError).toBe(false);
    expect(RunNotFoundError.isInstance(foreign)).toBe(true);
    expect(AgentError.isInstance(foreign)).toBe(true);
    expect(AgentClientError.isInstance(foreign)).toBe(false);
    expect(foreign.name).toBe('RunNotFoundError');
  });

  it('keeps the client errors apart from the CLI errors', () => {
    for (const { name, cls } of ALL.filter((c) => c.entry === 'client' && c.name !== 'AgentError')) {
      const err = make(name, cls);
      expect(err, name).not.toBeInstanceOf(CliError);
      expect(CliError.isInstance(err), name).toBe(false);
      expect(cls.prototype instanceof AgentClientError || cls === AgentClientError, name).toBe(true);
    }
    expect(AgentClientError.isInstance(new UsageError('x'))).toBe(false);
    expect(CliError.isInstance(new UsageError('x'))).toBe(true);
  });

  it('carries its markers out of sight: an error prints and spreads as it did', () => {
    const err = new RunNotFoundError('run-1');
    expect(Object.getOwnPropertySymbols(err).length).toBeGreaterThan(0);
    expect(Object.getOwnPropertySymbols({ ...err })).toEqual([]);
  });
});
