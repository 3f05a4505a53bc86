// Bundles a workflows module for the worker: once per process, or once per test run and shared.
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type BundleOptions, type BundlerPlugin, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { withQuarantineModule } from './quarantine-install.js';

/**
 * Bundling takes seconds; tests and the crash harness do it once and pass the code around.
 * Pass the plugins whose workflow code must be in the bundle (agentTracingPlugin or
 * agentMetricsPlugin): a worker given a prebuilt bundle cannot add them later. The quarantine's
 * interceptors are always in it (worker/quarantine-install.ts): a worker refuses a bundle without.
 */
export async function bundleWorkflows(path: string, options: { plugins?: BundlerPlugin[] } = {}): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode(
    withQuarantineModule({
      workflowsPath: path,
      logger: quietBundlerLogger,
      ...BUNDLER_OPTIONS,
      ...(options.plugins ? { plugins: options.plugins } : {}),
    }),
  );
}

/**
 * Evaluated once per worker and shared by every run (workflows/shared-modules.ts says what and
 * why). Resolved next to this file, so it works from the sources and from the built package.
 */
const PRELOADED = [fileURLToPath(new URL('../workflows/shared-modules.js', import.meta.url))];

/** How every bundle of the engine is built: here, and by a worker given a workflowsPath. */
export const BUNDLER_OPTIONS = { webpackConfigHook: nativeSyntax, preloadModules: PRELOADED } satisfies Partial<BundleOptions>;

/**
 * The engine's bundling added to someone else's (the worker plugin's bundler hook): our
 * preloaded modules after theirs, and our webpack hook before theirs, so theirs has the last
 * word. Applying it twice changes nothing (the bundler dedupes preloads; the hook is idempotent).
 */
export function withEngineBundling(options: BundleOptions): BundleOptions {
  const theirs = options.webpackConfigHook;
  return {
    ...options,
    preloadModules: [...new Set([...(options.preloadModules ?? []), ...PRELOADED])],
    webpackConfigHook: theirs && theirs !== nativeSyntax ? (config) => theirs(nativeSyntax(config)) : nativeSyntax,
  };
}

// The SDK compiles workflow TypeScript down to ES2017, which turns every object spread into a
// helper call. The controller is written as immutable updates (`{ ...state, x }`) and runs on
// every turn, so those helpers showed up as a visible share of the agent's worker CPU. Every
// Node the SDK supports runs ES2022 natively; compiling to it changes speed, not behaviour.
type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];
function nativeSyntax(config: WebpackConfig): WebpackConfig {
  for (const rule of config.module?.rules ?? []) {
    const use = rule && typeof rule === 'object' ? rule.use : undefined;
    const options = use && typeof use === 'object' && !Array.isArray(use) ? use.options : undefined;
    const jsc = options && typeof options === 'object' ? (options as { jsc?: { target?: string } }).jsc : undefined;
    if (jsc?.target) jsc.target = 'es2022';
  }
  return config;
}

const noop = (): void => {};
/** Errors only: the bundler's progress lines would drown a worker's or a test's output. */
export const quietBundlerLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: (m: string) => console.error(m), log: noop };
