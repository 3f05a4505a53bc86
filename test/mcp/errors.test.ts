// The one table from MCP failures to the engine's two answers, checked with the SDK's own error
// classes: only a definite "did not run" from the server is a refusal; everything that leaves
// the outcome open is unavailable (for an effect: unknown, read back by key).
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { classifyMcpError } from '../../activities/mcp/errors.js';
import { ToolRefused, ToolUnavailable } from '../../worker/public.js';

const classify = (err: unknown) => {
  const { error, dropConnection } = classifyMcpError(err, 'MCP test restart');
  return { refused: error instanceof ToolRefused, timedOut: error instanceof ToolUnavailable && error.timedOut, dropConnection };
};

describe('classifyMcpError', () => {
  it('treats rejections before running as refusals and keeps the connection', () => {
    for (const code of [ErrorCode.InvalidParams, ErrorCode.MethodNotFound, ErrorCode.InvalidRequest, ErrorCode.ParseError]) {
      expect(classify(new McpError(code, 'no'))).toEqual({ refused: true, timedOut: false, dropConnection: false });
    }
    expect(classify(new StreamableHTTPError(403, 'forbidden'))).toMatchObject({ refused: true });
    expect(classify(new UnauthorizedError())).toMatchObject({ refused: true });
  });

  it('leaves everything that may have run open: timeouts, closed connections, server failures, transport errors', () => {
    expect(classify(new McpError(ErrorCode.RequestTimeout, 'slow'))).toEqual({ refused: false, timedOut: true, dropConnection: false });
    expect(classify(new McpError(ErrorCode.ConnectionClosed, 'gone'))).toEqual({ refused: false, timedOut: false, dropConnection: true });
    expect(classify(new McpError(ErrorCode.InternalError, 'boom'))).toEqual({ refused: false, timedOut: false, dropConnection: false });
    expect(classify(new StreamableHTTPError(502, 'bad gateway'))).toEqual({ refused: false, timedOut: false, dropConnection: true });
    expect(classify(new TypeError('fetch failed'))).toEqual({ refused: false, timedOut: false, dropConnection: true });
    expect(classify(Object.assign(new Error('aborted'), { name: 'AbortError' }))).toEqual({ refused: false, timedOut: false, dropConnection: false });
  });

  it('passes the engine errors a tool already threw through unchanged', () => {
    const refused = new ToolRefused('no such service', 'not_found');
    expect(classifyMcpError(refused, 'x').error).toBe(refused);
  });
});
