// The MCP wire in the engine's terms: a server's result becomes output or a classified error,
// a readback's answer becomes a Readback, and the SDK is loaded only by workers that use it.
import { z } from 'zod';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { JsonSchemaValidatorResult, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Readback } from '../implement.js';
import { ToolRefused, ToolUnavailable } from '../tool-errors.js';
import type { McpToolInfo } from './tool-info.js';

/** A server's result in the engine's terms: isError is a definite no; otherwise its output. */
export function outputOf(result: Awaited<ReturnType<Client['callTool']>>, where: string, isError: 'refused' | 'unknown'): unknown {
  if ('toolResult' in result) return result.toolResult;
  const texts = result.content.flatMap((c) => (c.type === 'text' ? [c.text] : []));
  if (result.isError) {
    const said = `${where}: ${texts.join(' ').slice(0, 500) || 'the tool reported an error'}`;
    throw isError === 'unknown' ? new ToolUnavailable(said) : new ToolRefused(said, 'mcp_tool_error');
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  const first = texts[0];
  if (first === undefined) return undefined;
  try {
    return JSON.parse(first);
  } catch {
    // Not JSON: handed on as it is, and the contract's output schema judges it (bad_output).
    return first;
  }
}

const ReadbackAnswer = z.object({ applied: z.boolean(), output: z.unknown().optional(), effect: z.unknown().optional() });

export function decodeReadback(answer: unknown): Readback {
  const parsed = ReadbackAnswer.parse(answer);
  if (!parsed.applied) return { applied: false };
  const output = parsed.output ?? parsed.effect;
  return output === undefined ? { applied: true } : { applied: true, output };
}

export function declaresProperty(tool: McpToolInfo, property: string): boolean {
  return Object.hasOwn(tool.inputSchema.properties ?? {}, property);
}

/**
 * The SDK would check structured output against the server's own output schema and throw on a
 * mismatch. The contract's output schema is the one that counts (a mismatch is `bad_output`
 * evidence, decided by the engine), so the server's schema is not enforced here.
 */
export const contractDecides: jsonSchemaValidator = {
  getValidator<T>() {
    return (input: unknown): JsonSchemaValidatorResult<T> => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

export type Sdk = {
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
  StdioClientTransport: typeof import('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
  ToolListChangedNotificationSchema: typeof import('@modelcontextprotocol/sdk/types.js').ToolListChangedNotificationSchema;
};

let sdkLoading: Promise<Sdk> | undefined;
export function loadSdk(): Promise<Sdk> {
  sdkLoading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([client, stdio, http, types]) => ({
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
  }));
  return sdkLoading;
}
