// The root of the errors the worker entry throws: configuration refused at start (a deployment,
// an MCP source, a key ring, a shared task queue) and payloads that will not open. It lives here
// rather than in worker/ because activities throw it too (an MCP source configured wrongly),
// and activities import nothing from the worker.
import { AgentError } from '../workflows/agent-error.js';

/**
 * An error from the worker side of the engine: its configuration or its payloads, never a
 * tool's answer (that is `ToolRefused` or `ToolUnavailable`). Each one is a
 * subclass naming what is wrong; `AgentWorkerError.isInstance(err)` is true for all of them.
 */
export class AgentWorkerError extends AgentError {
  static override readonly errorName: string = 'AgentWorkerError';
}
