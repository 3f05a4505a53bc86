import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';

export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

/** Bundling takes seconds; tests and the crash harness do it once and pass the code around. */
export async function bundleWorkflows(path = workflowsPath): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath: path, logger: quietBundlerLogger });
}

const noop = (): void => {};
const quietBundlerLogger = { trace: noop, debug: noop, info: noop, warn: noop, error: (m: string) => console.error(m), log: noop };
