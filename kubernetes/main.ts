// `npm run kubernetes -- build|start`: the Kubernetes control plane for a person at a shell.
// `build` builds the binaries into .temporal/kubernetes/bin/ if they are missing (many minutes,
// once); `start` starts a control plane (building first if needed), prints its kubeconfig and
// server, and runs until Ctrl-C or SIGTERM, when it stops every child by its pid and removes its
// folder. A start killed outright takes its children with it (kubernetes/process.ts).
import { ensureBinaries } from './build.js';
import { startControlPlane } from './control-plane.js';
import { KUBERNETES_VERSION, KWOK_VERSION } from './paths.js';

const log = (m: string) => process.stderr.write(`[kubernetes] ${m}\n`);
const command = process.argv[2];

try {
  switch (command) {
    case 'build': {
      const { built, seconds } = await ensureBinaries(log);
      process.stdout.write(built ? `built in ${seconds} s\n` : `Kubernetes ${KUBERNETES_VERSION} and kwok ${KWOK_VERSION} are already built\n`);
      break;
    }
    case 'start': {
      await ensureBinaries(log);
      const plane = await startControlPlane({ log });
      process.stdout.write(`Kubernetes ${KUBERNETES_VERSION} control plane: ${plane.server} (nodes ${plane.nodeNames.join(', ')})\n`);
      process.stdout.write(`export KUBECONFIG=${plane.kubeconfigPath}   # then kubectl get nodes, ...\n`);
      process.stdout.write(`logs in ${plane.dir}; Ctrl-C stops it.\n`);
      await new Promise<void>((resolve) => {
        for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
      });
      log('stopping');
      await plane.stop();
      break;
    }
    default:
      process.stderr.write('usage: npm run kubernetes -- build|start\n');
      process.exitCode = 2;
  }
} catch (err) {
  process.stderr.write(`kubernetes: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
