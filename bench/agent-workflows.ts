// The agent's workflow bundle for the bench: the real agent workflow with the synthetic
// domain, exactly as a user's workflows module would export it.
import { agentWorkflowFor } from '../workflows/agent.js';
import { synthetic } from '../domains/synthetic/domain.js';

export const agentWorkflow = agentWorkflowFor([synthetic]);
