// The workflow bundle's entry point: every workflow type the worker registers.
export { pingWorkflow } from './ping.js';
export { agentWorkflow } from './agent.js';
