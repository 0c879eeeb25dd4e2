import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server as HttpServer, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  isInitializeRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { request } from 'undici';

/**
 * The benchmark's baseline: what a team would run instead of Onceport. An MCP server (the official
 * SDK, `@modelcontextprotocol/sdk`, Streamable HTTP) whose one tool forwards to the target with
 * undici and hands the answer back over SSE. No records, no identity, no retry matching. It keeps a
 * server and transport per session in memory, the fastest way measured that answers over SSE (intake builds
 * both per request on the SDK's v2 packages, its sessions in PostgreSQL for every replica; that
 * construction costs it 10–15 µs), so the floors the bench sets beside Onceport are not inflated by
 * the baseline. For comparison
 * (`scripts/mcp-layer-variants.ts`), `stateless: true` builds a server per request, and
 * `jsonAnswers: true` answers a call with one JSON body instead of an SSE stream.
 */
export interface PassThroughProxy {
  readonly url: string;
  close(): Promise<void>;
}

export async function startPassThroughProxy(
  targetUrl: string,
  port = 0,
  { stateless = false, jsonAnswers = false } = {},
): Promise<PassThroughProxy> {
  const serve = stateless ? statelessHandler(targetUrl) : sessionHandler(targetUrl, jsonAnswers);
  const http: HttpServer = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  const address = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        http.close((error) => (error ? reject(error) : resolve()));
        http.closeAllConnections(); // the sessions' open GET streams
      }),
  };
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * A server and transport per session, made at its initialize and dropped when the client ends it
 * (DELETE). Sessions a client just leaves stay until the process ends: the bench starts a proxy per
 * measurement, whose sessions are all in use until it stops.
 */
function sessionHandler(targetUrl: string, enableJsonResponse: boolean): Handler {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  return async (req, res) => {
    const body = await bodyOf(req, res);
    if (body === UNREADABLE) return;
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport && sessionId === undefined) {
      if (!isInitializeRequest(body)) return answerError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse,
        onsessioninitialized: (id) => void sessions.set(id, created),
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      await forwardingServer(targetUrl).connect(created);
      transport = created;
    }
    if (!transport) return answerError(res, 404, -32001, 'Session not found');
    await transport.handleRequest(req, res, body);
  };
}

/** The SDK's stateless way: a new server and transport for every request. */
function statelessHandler(targetUrl: string): Handler {
  return async (req, res) => {
    const body = await bodyOf(req, res);
    if (body === UNREADABLE) return;
    const server = forwardingServer(targetUrl);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
}

function forwardingServer(targetUrl: string): Server {
  const server = new Server({ name: 'pass-through-proxy', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: 'create_deployment',
        description: 'Forwards to the target',
        inputSchema: {
          type: 'object',
          properties: { project: { type: 'string' }, environment: { type: 'string' }, version: { type: 'string' } },
          required: ['project', 'environment', 'version'],
        },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (call): Promise<CallToolResult> => {
    const args = (call.params.arguments ?? {}) as { project?: string };
    const response = await request(`${targetUrl}/v1/projects/${encodeURIComponent(String(args.project))}/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(call.params.arguments ?? {}),
    });
    const text = await response.body.text();
    return {
      content: [{ type: 'text', text }],
      structuredContent: { target_status: response.statusCode, body: safeJson(text) },
      isError: response.statusCode >= 400,
    };
  });
  return server;
}

const UNREADABLE = Symbol('unreadable');

/** A POST's JSON body (undefined for other methods); a body that is not JSON is answered 400 here. */
async function bodyOf(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  if (req.method !== 'POST') return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    answerError(res, 400, -32700, 'Parse error: the body is not JSON');
    return UNREADABLE;
  }
}

function answerError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text; // the target answered something other than JSON: pass it on as text
  }
}
