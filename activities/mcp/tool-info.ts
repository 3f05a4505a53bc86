// What an MCP server says about one of its tools, alone in a leaf module: the source's
// configuration (config.ts) lists tools in this shape and the bindings report (bindings.ts) reads
// it, and the report's types are part of that configuration, so the two cannot import each other.
/** A tool as the server lists it: what it says about itself, which the engine only reports. */
export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: { type: 'object'; properties?: Record<string, object>; required?: string[] };
  outputSchema?: { type: 'object'; properties?: Record<string, object>; required?: string[] };
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}
