// The agent workflow's type name, alone in a leaf module. Clients start runs by it, and the
// activities compare a continued execution's type with it (activities/continuation.ts); neither
// should load the interpreter (agent.ts, and the workflow SDK with it) for one string, and the
// activities importing the interpreter closed an import cycle (agent -> perform -> activities).
/** Temporal's name for the agent workflow: export the result of agentWorkflowFor() under this name. */
export const AGENT_WORKFLOW_TYPE = 'agentWorkflow';
