// The worker's workflows module: the engine's agent workflow over this team's domains.
import { agentWorkflowFor } from 'bounded-react-temporal/workflow';
import { refunds } from './refunds.mjs';

export const agentWorkflow = agentWorkflowFor([refunds]);
