// One Kubernetes control plane (etcd, API server, controller manager, scheduler, kwok with two
// nodes) for the whole `npm run test:kubernetes` run, started before any test and stopped by
// its pids after the last. Each test file works in namespaces of its own. Binaries that are not
// built fail the run here, naming the command that builds them; nothing skips.
import type { TestProject } from 'vitest/node';
import { startControlPlane } from '../../kubernetes/control-plane.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kubernetes: { server: string; token: string; ca: string; kubeconfigPath: string; nodeNames: string[] };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const plane = await startControlPlane({ log: (line) => process.stderr.write(`[kubernetes] ${line}\n`) });
  const { server, token, ca, kubeconfigPath, nodeNames } = plane;
  project.provide('kubernetes', { server, token, ca, kubeconfigPath, nodeNames });
  return () => plane.stop();
}
