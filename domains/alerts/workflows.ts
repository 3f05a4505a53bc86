// The alerts example's workflow bundle: the engine's agent workflow over the alerts domain. A team
// starting runs from its alerts writes the same line for its own domains.
import { agentWorkflowFor } from '../../workflows/public.js';
import { alerts } from './domain.js';

export const agentWorkflow = agentWorkflowFor([alerts]);
