import { type IncomingMessage, type Server as HttpServer, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { request } from 'undici';

/**
 * The benchmark's baseline: what a team would run instead of Onceport. A stateless MCP server (the
 * official SDK, Streamable HTTP, a new server and transport per request) whose one tool forwards to
 * the target with undici and hands the answer back. No records, no identity, no retry matching.
 */
export interface PassThroughProxy {
  readonly url: string;
  close(): Promise<void>;
}

export async function startPassThroughProxy(targetUrl: string, port = 0): Promise<PassThroughProxy> {
  const http: HttpServer = createServer((req, res) => {
    handle(targetUrl, req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  const address = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    close: () => new Promise<void>((resolve, reject) => http.close((error) => (error ? reject(error) : resolve()))),
  };
}

async function handle(targetUrl: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = req.method === 'POST' ? await readJson(req) : undefined;
  const server = forwardingServer(targetUrl);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
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

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text; // the target answered something other than JSON: pass it on as text
  }
}
