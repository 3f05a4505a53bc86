// Why this exists: the workflows module the AgentDojo worker bundles: the engine's agent workflow
// over the AgentDojo domains, as a team writes it for its own domains.
import { agentWorkflowFor } from '../../workflows/public.js';
import { banking } from './banking.js';
import { slack } from './slack.js';
import { travel } from './travel.js';
import { workspace } from './workspace.js';

export const agentWorkflow = agentWorkflowFor([banking, slack, travel, workspace]);
