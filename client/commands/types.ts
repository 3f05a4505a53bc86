// What every command gets: its parsed arguments and flags, a lazily connected AgentClient (usage
// errors are reported before anything connects) and the output mode.
import { userInfo } from 'node:os';
import type { AgentClient } from '../agent-client.js';
import { UsageError } from '../usage.js';
import type { Domain } from '../../workflows/contract.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** Placeholder shown in usage, e.g. `N` for `--turns N`. */
  value?: string;
  /** Shown without brackets in usage; the command itself refuses to run without it. */
  required?: boolean;
  description: string;
}

export interface CommandContext {
  json: boolean;
  /** How the operator invokes this CLI (`agent`, `npm run cli --`), for hints that name a command. */
  program: string;
  /** The domains this CLI was built with, if any (start validates against them). */
  domains?: readonly Domain[] | undefined;
  /** The workflows module `replay` bundles. */
  workflowsPath?: string | undefined;
  /** The AgentClient every command that talks to a run goes through; connects on first call. */
  agent(): Promise<AgentClient>;
  /** One line to stdout. */
  out(line: string): void;
  /** One line to stderr: progress and logs, never a command's answer. */
  err(line: string): void;
  /** Where settings are read: the process's environment, or the one a caller of cliMain gave. */
  env: NodeJS.ProcessEnv;
}

export type CommandRun = (ctx: CommandContext, args: Record<string, string>, flags: Flags) => Promise<number | void>;

/** A command's interface; its implementation is loaded only when it runs (startup stays quick). */
export interface CommandSpec {
  name: string;
  /** Positional arguments, all required; a trailing `...` takes the rest (joined by spaces). */
  args: string[];
  options: Record<string, OptionSpec>;
  summary: string;
  load(): Promise<CommandRun>;
}

type RawValues = Record<string, string | boolean | Array<string | boolean> | undefined>;

export class Flags {
  constructor(private readonly values: RawValues) {}

  str(name: string): string | undefined {
    const v = this.values[name];
    return typeof v === 'string' ? v : undefined;
  }

  bool(name: string): boolean {
    return this.values[name] === true;
  }

  /** A whole number in [min, max], or a usage error naming the flag. */
  int(name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
    const raw = this.str(name);
    if (raw === undefined) return undefined;
    if (!/^-?\d+$/.test(raw.trim())) throw new UsageError(`--${name} must be a whole number, got '${raw}'`);
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be between ${min} and ${max}, got ${raw}`);
    return n;
  }
}

/**
 * Who is acting: --as, else $USER (or %USERNAME%), else the operating system's account name (a
 * container sets no $USER, but its process still runs as someone).
 */
export function identity(flags: Flags, env: NodeJS.ProcessEnv, osUser: () => string | undefined = accountName): string {
  const who = [flags.str('as'), env.USER, env.USERNAME, osUser()].find((w) => w !== undefined && w.trim() !== '');
  if (who === undefined) throw new UsageError('say who you are with --as <identity> ($USER is not set, and the account has no name)');
  return who.trim();
}

function accountName(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined; // a uid with no passwd entry
  }
}

export const asOption: OptionSpec = { type: 'string', value: 'IDENTITY', description: 'who is acting (default: $USER, else the account name)' };
