import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { All, Controller, Inject, Req, Res } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { bearerToken } from '@onceport/config';
import { CallToolService } from '../call-tool/call-tool.service';
import { RecordDeliveryService } from '../deliver-result/record-delivery.service';
import { INTAKE_DEPENDENCIES, type IntakeDependencies } from '../intake-dependencies';
import { QueryExecutionService } from '../query-execution/query-execution.service';
import { BodyTooLargeError, MalformedJsonError, readJsonBody } from '../rest/read-json-body';
import { invalidJsonRpc, jsonRpcError } from './json-rpc-shape';
import { McpSessions } from './mcp-sessions';
import { createMcpServer } from './mcp-server.factory';
import { PgMcpEventStore } from './pg-mcp-event-store';

/**
 * MCP Streamable HTTP at /mcp. Every HTTP request gets its own transport and server; sessions and
 * stream events live in PostgreSQL, so any replica serves any session, and a dropped connection
 * never cancels the work its request started.
 */
@Controller('mcp')
export class McpController {
  private readonly sessions: McpSessions;

  constructor(
    @Inject(INTAKE_DEPENDENCIES) private readonly deps: IntakeDependencies,
    private readonly callTool: CallToolService,
    private readonly query: QueryExecutionService,
    private readonly delivery: RecordDeliveryService,
  ) {
    this.sessions = new McpSessions(deps.runtime.pool);
  }

  @All()
  async handle(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const token = bearerToken(req.headers.authorization);
    const actor = token ? this.deps.actors.authenticate(token) : null;
    if (!actor) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="onceport"');
      return send(res, 401, jsonRpcError(-32001, 'Unauthorized: send Authorization: Bearer <your Onceport API key>'));
    }
    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = await readJsonBody(req, this.deps.settings.maxBodyBytes);
      } catch (error) {
        if (error instanceof BodyTooLargeError) return send(res, 413, jsonRpcError(-32600, `Request too large: the limit is ${error.limit} bytes`));
        if (error instanceof MalformedJsonError) return send(res, 400, jsonRpcError(-32700, `Parse error: ${error.message}`));
        throw error;
      }
      const invalid = invalidJsonRpc(body);
      if (invalid) return send(res, 400, jsonRpcError(-32600, `Invalid Request: ${invalid}`));
    }
    const claimedSession = headerOf(req, 'mcp-session-id');
    if (claimedSession) {
      const owner = await this.sessions.actorOf(claimedSession);
      // Another actor's session is as unknown to this caller as one that never existed.
      if (owner !== actor.id) return send(res, 404, jsonRpcError(-32001, 'Session not found: initialize a new session'));
    }
    if (req.method === 'DELETE' && claimedSession) await this.sessions.end(claimedSession);

    let sessionId: string | null = claimedSession;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: async (id) => {
        sessionId = id;
        await this.sessions.register(id, actor.id);
      },
      eventStore: new PgMcpEventStore(this.deps.runtime.pool, () => sessionId ?? undefined),
    });
    if (claimedSession) adoptSession(transport, claimedSession);
    const server = createMcpServer(
      { deps: this.deps, callTool: this.callTool, query: this.query, delivery: this.delivery },
      { actor: actor.id, sessionId: () => sessionId, response: res, traceparent: headerOf(req, 'traceparent'), tracestate: headerOf(req, 'tracestate') },
    );
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }
}

/**
 * The SDK keeps a session's state in the transport that initialized it. Ours lives in PostgreSQL:
 * a request for a known session gets a fresh transport marked as initialized for that session.
 */
function adoptSession(transport: StreamableHTTPServerTransport, sessionId: string): void {
  const inner = (transport as unknown as { _webStandardTransport: { sessionId?: string; _initialized: boolean } })._webStandardTransport;
  inner.sessionId = sessionId;
  inner._initialized = true;
}

function headerOf(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' && value.length > 0 ? value : null;
}

function send(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}
