import { type IncomingMessage, type Server as HttpServer, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { type UpstreamBehavior, clearBehaviors, setBehavior } from './state/behaviors';
import { type UpstreamCatalog, setCatalog } from './state/catalog';
import { type EffectFilter, type UpstreamEffect, readEffects } from './state/effect-ledger';
import { ensureStateDir } from './state/files';
import { DEFAULT_TASK_DELAY_MS } from './state/tasks';
import { createUpstreamServer } from './upstream-server';

export interface HttpUpstreamOptions {
  /** Where the effect ledger, the behaviours and the tasks live (shared with any stdio upstream on it). */
  readonly stateDir: string;
  /** 0 (default): any free port. `restart()` keeps the port it got. */
  readonly port?: number;
  /** How long after `maybe_task` its task reports completed (default 300 ms); null: never. */
  readonly taskDelayMs?: number | null;
}

/** The test upstream over Streamable HTTP on loopback, as a test drives it. */
export interface HttpUpstream {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  effects(filter?: EffectFilter): UpstreamEffect[];
  setBehavior(behavior: UpstreamBehavior): string;
  clearBehaviors(): void;
  setCatalog(catalog: UpstreamCatalog): void;
  /** Stops accepting, cuts every open connection, and listens again on the same port (the state stays). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the test upstream over Streamable HTTP (both eras: 2026-07-28 per request, 2025-11-25
 * stateless) on 127.0.0.1.
 *
 * @example const upstream = await startHttpUpstream({ stateDir }); … await upstream.stop();
 */
export async function startHttpUpstream(options: HttpUpstreamOptions): Promise<HttpUpstream> {
  const { stateDir } = options;
  ensureStateDir(stateDir);
  const taskDelayMs = options.taskDelayMs === undefined ? DEFAULT_TASK_DELAY_MS : options.taskDelayMs;
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    if (!req.url?.startsWith('/mcp')) return void res.writeHead(404).end();
    // A handler per request, so a fault can reach this request's socket.
    let faulted = false;
    const cut = (): void => {
      faulted = true;
      res.socket?.destroy();
    };
    const handler = createMcpHandler(({ era }) =>
      createUpstreamServer({ stateDir, taskDelayMs, faults: { cutAfterApply: cut, dieMidCall: cut } }, era),
    );
    // A request whose socket a fault destroyed fails inside the SDK: that is the fault, not a bug.
    const report = (error: unknown): void => {
      if (!faulted) process.stderr.write(`test-upstream: ${error instanceof Error ? error.message : String(error)}\n`);
    };
    toNodeHandler(handler, { onerror: report })(req, res).catch(report);
  };

  let server = await listen(createServer(serve), options.port ?? 0);
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    effects: (filter) => readEffects(stateDir, filter),
    setBehavior: (behavior) => setBehavior(stateDir, behavior),
    clearBehaviors: () => clearBehaviors(stateDir),
    setCatalog: (catalog) => setCatalog(stateDir, catalog),
    restart: async () => {
      await close(server);
      // Let clients in this process see their connections closed before new ones are made, so
      // a pooled keep-alive socket to the old server is not picked for the first new request.
      await new Promise((resolve) => setTimeout(resolve, 20));
      server = await listen(createServer(serve), port);
    },
    stop: () => close(server),
  };
}

function listen(server: HttpServer, port: number): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

function close(server: HttpServer): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
