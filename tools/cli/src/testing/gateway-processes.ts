import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { TestNatsServer } from '@onceport/messaging/testing';
import { type AppProcess, GATEWAY_SERVICES, type GatewayFixture, startGateway as startGatewayServices } from '@onceport/gateway-harness';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type TestTarget, startTestTarget } from '@onceport/test-target';

export const AGENT_KEY = 'key-cli-agent-6h2p';

/** The four Onceport services as processes over a private JetStream and a fresh database: what the CLI talks to in production. */
export interface Gateway {
  readonly db: TestDatabase;
  readonly fixture: GatewayFixture;
  readonly target: TestTarget;
  readonly intake: AppProcess;
  readonly authorization: AppProcess;
  readonly reconciler: AppProcess;
  /** Environment for the CLI: service URLs, the admin key, the database. */
  readonly cliEnv: Record<string, string>;
  /** Where every service writes its spans (JSON lines, ONCEPORT_TRACE_FILE). */
  readonly traceFile: string;
  /** Everything every service printed so far (its log lines), the four one after the other. */
  logs(): string;
  /** A REST call of the agent; `extra`: more request fields (`run`, `wait_ms`). */
  agentCall(
    tool: string,
    args: Record<string, unknown>,
    extra?: Record<string, unknown>,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  /** An MCP session of the agent, as an MCP client SDK opens it. */
  mcpClient(): Promise<Client>;
  stop(): Promise<void>;
}

/** `extraEnv`: settings a test needs on every service (short approval TTLs, quarantine attempts). */
export async function startGateway(extraEnv: Record<string, string> = {}): Promise<Gateway> {
  const [db, nats, target] = await Promise.all([createTestDatabase(), TestNatsServer.start(), startTestTarget()]);
  const stopServers = async (): Promise<void> => {
    await Promise.all([target.stop(), nats.stop()]);
    await db.drop();
  };
  try {
    const gateway = await startGatewayServices({
      targetUrl: target.url,
      actors: [{ id: 'agent:cli-test', key: AGENT_KEY, tools: '*' }],
      database: db,
      nats,
      trace: true,
      env: {
        ONCEPORT_CREDENTIAL_PAYMENTS_LIVE: 'sekret-cli-pay',
        ONCEPORT_CREDENTIAL_DEPLOY_API: 'sekret-cli-deploy',
        ONCEPORT_ANSWER_WAIT_MS: '3000',
        ...extraEnv,
      },
    });
    const { fixture } = gateway;
    const [intake, authorization, reconciler] = [
      gateway.process('intake'),
      gateway.process('authorization'),
      gateway.process('reconciler'),
    ];
    const stop = async (): Promise<void> => {
      await gateway.stop();
      await stopServers();
    };
    return {
      db,
      fixture,
      target,
      intake,
      authorization,
      reconciler,
      cliEnv: {
        ONCEPORT_AUTHORIZATION_URL: authorization.url,
        ONCEPORT_RECONCILER_URL: reconciler.url,
        ONCEPORT_INTAKE_URL: intake.url,
        ONCEPORT_ADMIN_KEY: fixture.adminKey,
        DATABASE_URL: db.url,
      },
      traceFile: gateway.traceFile,
      logs: () => GATEWAY_SERVICES.map((service) => gateway.output(service)).join('\n'),
      async agentCall(tool, args, extra = {}) {
        const response = await fetch(`${intake.url}/v1/executions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${AGENT_KEY}` },
          body: JSON.stringify({ tool, arguments: args, ...extra }),
        });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      },
      async mcpClient() {
        const client = new Client({ name: 'cli-e2e-agent', version: '1.0.0' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${intake.url}/mcp`), {
            requestInit: { headers: { Authorization: `Bearer ${AGENT_KEY}` } },
          }),
        );
        return client;
      },
      stop,
    };
  } catch (error) {
    await stopServers();
    throw error;
  }
}

export async function eventually<T>(probe: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
