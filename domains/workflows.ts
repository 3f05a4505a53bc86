// The examples' workflow bundle: the engine's agent workflow over the example domains, plus a
// ping workflow the smoke test uses. A team writes the same two lines for its own domains.
import { agentWorkflowFor } from '../workflows/public.js';
import { incidents } from './incidents/domain.js';
import { payments } from './payments/domain.js';
import { synthetic } from './synthetic/domain.js';

export const agentWorkflow = agentWorkflowFor([payments, incidents, synthetic]);
export { pingWorkflow } from '../workflows/ping.js';
