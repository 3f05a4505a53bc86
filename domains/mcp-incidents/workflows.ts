// The workflows module a worker for the MCP incidents example bundles: the engine's agent
// workflow over this one domain, exactly the two lines a team writes for its own.
import { agentWorkflowFor } from '../../workflows/public.js';
import { mcpIncidents } from './domain.js';

export const agentWorkflow = agentWorkflowFor([mcpIncidents]);
