import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { type GuardableServerInternals, guardRequestHandlers } from './mcp-error-guard';

function serverThrowing(error: unknown): {
  server: Server;
  handlers: GuardableServerInternals['_requestHandlers'];
  logged: Record<string, unknown>[];
} {
  const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(CallToolRequestSchema, () => {
    throw error;
  });
  const logged: Record<string, unknown>[] = [];
  guardRequestHandlers(server, (_level, _message, fields) => logged.push(fields));
  return { server, handlers: (server as unknown as GuardableServerInternals)._requestHandlers, logged };
}

const call = (params: unknown) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params });

describe('guardRequestHandlers: what a handler throws, as the client may see it', () => {
  it('pins the SDK internals it wraps (fails loudly on an SDK upgrade that moves them)', () => {
    const { handlers } = serverThrowing(new Error('x'));
    expect(handlers).toBeInstanceOf(Map);
    expect([...handlers.keys()]).toEqual(expect.arrayContaining(['initialize', 'ping', 'tools/call']));
  });

  it('an internal error (e.g. PostgreSQL) becomes a generic -32603 with a correlation id; the text and stack stay in the log', async () => {
    const { handlers, logged } = serverThrowing(new Error('duplicate key value violates unique constraint "events_stream_version_unique"'));
    const thrown = (await handlers.get('tools/call')!(call({ name: 'x' }), {}).catch((e: unknown) => e)) as McpError;
    expect(thrown).toBeInstanceOf(McpError);
    expect(thrown.code).toBe(ErrorCode.InternalError);
    expect(thrown.message).not.toMatch(/duplicate|constraint|events_/);
    const correlationId = (thrown.data as { correlation_id: string }).correlation_id;
    expect(correlationId).toMatch(/^err_[0-9a-f-]{36}$/);
    expect(thrown.message).toContain(correlationId);
    expect(logged).toEqual([
      expect.objectContaining({
        correlation_id: correlationId,
        error: expect.stringContaining('events_stream_version_unique'),
        stack: expect.any(String),
      }),
    ]);
  });

  it('params the SDK schema refuses become -32602 naming the paths, not -32603 with a zod dump', async () => {
    const { handlers, logged } = serverThrowing(new Error('never reached'));
    const thrown = (await handlers.get('tools/call')!(call({ name: 'x', arguments: [1, 2] }), {}).catch((e: unknown) => e)) as McpError;
    expect(thrown.code).toBe(ErrorCode.InvalidParams);
    expect((thrown.data as { violations: { path: string }[] }).violations.map((v) => v.path)).toEqual(['params.arguments']);
    expect(logged).toEqual([]);
  });

  it('an McpError a handler meant for the client passes through unchanged', async () => {
    const meant = new McpError(ErrorCode.InvalidParams, 'unknown tool "x"', { code: 'unknown_tool' });
    const { handlers } = serverThrowing(meant);
    await expect(handlers.get('tools/call')!(call({ name: 'x' }), {})).rejects.toBe(meant);
  });
});
