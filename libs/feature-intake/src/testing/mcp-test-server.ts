import { once } from 'node:events';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExecutionWatcher } from '../await-outcome/execution-watcher';
import type { IntakeDependencies, IntakeSettings } from '../intake-dependencies';
import type { McpController } from '../mcp/mcp.controller';
import type { IntakeHarness } from './intake-harness';

export interface McpTestServer {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  readonly port: number;
  readonly controller: McpController;
  close(): Promise<void>;
}

/** Intake's real MCP controller on a loopback HTTP server, over the harness's database; `keys` maps API keys to actors. */
export async function serveMcp(
  h: IntakeHarness,
  keys: Record<string, string>,
  settings: Partial<IntakeSettings> = {},
): Promise<McpTestServer> {
  const deps: IntakeDependencies = {
    ...h.deps,
    settings: { ...h.deps.settings, ...settings },
    actors: { authenticate: (token) => (keys[token] ? { id: keys[token] } : null) },
  };
  const watcher = new ExecutionWatcher(h.ports.pool, () => undefined, { hear: (types, heard) => h.ports.delivery.hear(types, heard) });
  await watcher.start();
  const controller = h.mcpController(deps, watcher);
  const server: Server = createServer((req, res) => void controller.handle(req, res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    controller,
    async close() {
      server.closeAllConnections();
      server.close();
      controller.onApplicationShutdown();
      await watcher.stop();
    },
  };
}
