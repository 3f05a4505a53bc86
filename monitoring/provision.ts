// Prometheus and Alertmanager for the alert loop's tests and demo. `npm ci && npm test` must be all
// the set-up a fresh machine needs, so they are provisioned the way the tests provision Chromium
// (test/setup/chromium.ts): use the binaries that are there (PROMETHEUS_PATH / ALERTMANAGER_PATH,
// else Debian's /usr/bin), else install Debian's packages when we may (root, apt-get), else one
// line that says exactly what to run. Never a silent skip.
import { execFileSync } from 'node:child_process';
import { isExecutable } from '../temporal-dev/executable.js';

export const DEFAULT_PROMETHEUS_PATH = '/usr/bin/prometheus';
export const DEFAULT_ALERTMANAGER_PATH = '/usr/bin/prometheus-alertmanager';
export const APT_INSTALL_MONITORING = 'apt-get update -qq && apt-get install -y -qq prometheus prometheus-alertmanager';

export interface MonitoringBinaries {
  prometheus: string;
  alertmanager: string;
}

export type MonitoringProvision =
  ({ kind: 'found' } & MonitoringBinaries) | ({ kind: 'installed' } & MonitoringBinaries) | { kind: 'missing'; instruction: string };

export interface MonitoringProvisionOptions {
  env?: NodeJS.ProcessEnv;
  /** Where the packages put them; a test points them at missing paths. */
  defaults?: Partial<MonitoringBinaries>;
  /** Whether this process may install system packages (default: running as root). */
  isRoot?: boolean;
  /** The shell command that installs them (default: apt-get, as above). */
  installCommand?: string;
  log?: (line: string) => void;
}

/** Where to look: the environment's paths, else the packages' (Debian names Alertmanager's binary prometheus-alertmanager). */
export function monitoringPaths(env: NodeJS.ProcessEnv = process.env, defaults: Partial<MonitoringBinaries> = {}): MonitoringBinaries {
  return {
    prometheus: env.PROMETHEUS_PATH?.trim() || defaults.prometheus || DEFAULT_PROMETHEUS_PATH,
    alertmanager: env.ALERTMANAGER_PATH?.trim() || defaults.alertmanager || DEFAULT_ALERTMANAGER_PATH,
  };
}

export function provisionMonitoring(options: MonitoringProvisionOptions = {}): MonitoringProvision {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => {});
  const paths = monitoringPaths(env, options.defaults);
  const absent = () => (Object.entries(paths) as [keyof MonitoringBinaries, string][]).filter(([, path]) => !isExecutable(path));
  if (absent().length === 0) return { kind: 'found', ...paths };

  // A path the user named is theirs to fix; installing the package would not put anything there.
  for (const [name, variable] of [
    ['prometheus', 'PROMETHEUS_PATH'],
    ['alertmanager', 'ALERTMANAGER_PATH'],
  ] as const) {
    if (env[variable]?.trim() && !isExecutable(paths[name])) {
      return missing(`${variable}=${paths[name]} is not an executable ${name}; point it at one or unset it to use Debian's package`);
    }
  }

  const command = options.installCommand ?? APT_INSTALL_MONITORING;
  const isRoot = options.isRoot ?? process.getuid?.() === 0;
  const names = absent()
    .map(([, path]) => path)
    .join(' and ');
  if (!isRoot) return missing(`no ${names}: run \`sudo sh -c '${command}'\` (or set PROMETHEUS_PATH and ALERTMANAGER_PATH), then run again`);

  log(`no ${names}; installing: ${command}`);
  const failure = runInstall(command);
  if (failure !== undefined) return missing(`\`${command}\` failed (${failure}); fix that and run it by hand, then run again`);
  const still = absent();
  if (still.length > 0) return missing(`\`${command}\` ran but left no executable at ${still.map(([, p]) => p).join(' and ')}`);
  log(`installed ${paths.prometheus} and ${paths.alertmanager}`);
  return { kind: 'installed', ...paths };
}

/** The one line a person reads when the alert loop cannot run. */
export function missingMonitoringLine(result: Extract<MonitoringProvision, { kind: 'missing' }>): string {
  return `the alert loop needs Prometheus and Alertmanager: ${result.instruction}`;
}

function missing(instruction: string): MonitoringProvision {
  return { kind: 'missing', instruction };
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
