// Upgrade on continue-as-new: a run pinned to the build that started it (Worker Versioning,
// worker/deployment.ts) moves to the deployment's new current build at the engine's own
// rollover, a quiet point where nothing is in flight and a pending approval rides along in
// the carried state. The server says when the run's build is no longer the current one
// (targetWorkerDeploymentVersionChanged, recorded in the workflow task's history, so a replay
// sees what the first run saw; while a seal check is pending, as it was when the check started:
// arrivals.ts); the rollover then asks the server to start the next execution on the current
// build, where the new code loads the carried state as any carried state.
// Without Worker Versioning, or for an auto-upgrading run, the server never says so, and no
// run takes this path.
import { continueAsNew, makeContinueAsNewFunc, type Workflow } from '@temporalio/workflow';
import { loopTask } from './arrivals.js';

/** At a quiet point: whether this run should roll over now to move to the deployment's current build. */
export function upgradeDue(): boolean {
  return loopTask().buildChanged;
}

/** Continue as new; onto the current build when `upgrade`, else (a size rollover) on the run's own. */
export function rollOver<F extends Workflow>(upgrade: boolean, ...args: Parameters<F>): Promise<never> {
  return upgrade ? makeContinueAsNewFunc<F>({ initialVersioningBehavior: 'AUTO_UPGRADE' })(...args) : continueAsNew<F>(...args);
}
