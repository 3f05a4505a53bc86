// The console tests drive a real Chromium. `npm ci && npm test` must be all the set-up a fresh
// machine needs, so the test run provisions it the way it provisions the Temporal CLI: use the
// one that is there (CHROMIUM_PATH, else Debian's /usr/bin/chromium), else install Debian's
// package when we may (root, apt-get), else stop the run before any test with one line that says
// exactly what to run. Never a silent skip.
import { execFileSync } from 'node:child_process';
import { isExecutable } from '../../temporal-dev/executable.js';

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';
export const APT_INSTALL_CHROMIUM = 'apt-get update -qq && apt-get install -y -qq chromium';

export type ChromiumProvision = { kind: 'found'; path: string } | { kind: 'installed'; path: string } | { kind: 'missing'; path: string; instruction: string };

export interface ChromiumProvisionOptions {
  env?: NodeJS.ProcessEnv;
  /** Where the package puts it (default /usr/bin/chromium); a test points it at a missing path. */
  defaultPath?: string;
  /** Whether this process may install system packages (default: running as root). */
  isRoot?: boolean;
  /** The shell command that installs it (default: apt-get, as above). */
  installCommand?: string;
  log?: (line: string) => void;
}

/** Where the tests look for Chromium: CHROMIUM_PATH, else Debian's package. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env, defaultPath = DEFAULT_CHROMIUM_PATH): string {
  return env.CHROMIUM_PATH?.trim() || defaultPath;
}

export function provisionChromium(options: ChromiumProvisionOptions = {}): ChromiumProvision {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => {});
  const defaultPath = options.defaultPath ?? DEFAULT_CHROMIUM_PATH;
  const path = chromiumPath(env, defaultPath);
  if (isExecutable(path)) return { kind: 'found', path };

  // A path the user named is theirs to fix; installing the package would not put anything there.
  if (env.CHROMIUM_PATH?.trim()) return missing(path, `CHROMIUM_PATH=${path} is not an executable Chromium; point it at one or unset it to use ${defaultPath}`);

  const command = options.installCommand ?? APT_INSTALL_CHROMIUM;
  const isRoot = options.isRoot ?? process.getuid?.() === 0;
  if (!isRoot) return missing(path, `run \`sudo sh -c '${command}'\` (or set CHROMIUM_PATH to a Chromium binary), then run the tests again`);

  log(`no Chromium at ${path}; installing it: ${command}`);
  const failure = runInstall(command);
  if (failure !== undefined)
    return missing(
      path,
      `\`${command}\` failed (${failure}); fix that and run it by hand (or set CHROMIUM_PATH to a Chromium binary), then run the tests again`,
    );
  if (!isExecutable(path))
    return missing(path, `\`${command}\` ran but left no executable at ${path}; install Chromium there or set CHROMIUM_PATH to a Chromium binary`);
  log(`installed Chromium at ${path}`);
  return { kind: 'installed', path };
}

/** The one line a person reads when the tests cannot run. */
export function missingChromiumLine(result: Extract<ChromiumProvision, { kind: 'missing' }>): string {
  return `tests need Chromium for the console suite and found none at ${result.path}: ${result.instruction}`;
}

function missing(path: string, instruction: string): ChromiumProvision {
  return { kind: 'missing', path, instruction };
}

/** Undefined on success, else a one-line reason (the command's last line of stderr). */
function runInstall(command: string): string | undefined {
  try {
    execFileSync('sh', ['-c', `${command} >/dev/null`], {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 15 * 60_000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    return undefined;
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim().split('\n').at(-1);
    const status = (err as { status?: number | null }).status;
    return stderr || (status != null ? `exit code ${status}` : err instanceof Error ? (err.message.split('\n')[0] ?? 'failed') : 'failed');
  }
}
