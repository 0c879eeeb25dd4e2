import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { TestNatsServer } from '@onceport/messaging/testing';
import { type GatewayFixture, type GatewayProcesses, startGatewayProcesses, writeGatewayFixture } from '@onceport/runtime/testing';
import { type TestTarget, startTestTarget } from '@onceport/test-target';
import { HOSTILE_ACTORS, HOSTILE_KEYS, HOSTILE_SECRETS } from './hostile-actors';

/**
 * The four services as processes over a fresh database, aimed at the test target, as the pipeline
 * suite starts them. `jetstream`: events travel over a private JetStream; `in_process`: the delivery
 * the embedded start uses (each consumer tails the store itself), no broker at all.
 */
export interface HostileGateway {
  readonly db: TestDatabase;
  readonly target: TestTarget;
  readonly fixture: GatewayFixture;
  readonly services: GatewayProcesses;
  /** Rows in the event store: a refused call must leave this unchanged. */
  eventCount(): Promise<number>;
  /** A raw POST to /mcp as `agent:a` on its session (`session: false`: no session headers). */
  mcp(body: string, headers?: Record<string, string>, options?: { session?: boolean }): Promise<Reply>;
  /** A raw request to intake's REST API as `agent:a`. */
  rest(method: string, path: string, body?: string, headers?: Record<string, string>): Promise<Reply>;
  stop(): Promise<void>;
}

export interface Reply {
  readonly status: number;
  readonly text: string;
  /** The JSON-RPC messages of an /mcp answer (JSON or SSE), or the REST body as one element. */
  readonly messages: readonly Record<string, unknown>[];
  readonly headers: Headers;
}

export const PROTOCOL_VERSION = '2025-11-25';

export type Delivery = 'jetstream' | 'in_process';

export async function startHostileGateway(delivery: Delivery): Promise<HostileGateway> {
  const [db, nats, target] = await Promise.all([createTestDatabase(), delivery === 'jetstream' ? TestNatsServer.start() : null, startTestTarget()]);
  target.setBehavior({ honour_idempotency: false });
  // in_process never connects to NATS; the variable is only required to be a URL.
  const fixture = writeGatewayFixture(target.url, HOSTILE_ACTORS, db.url, nats?.url ?? 'nats://127.0.0.1:1');
  const services = await startGatewayProcesses(
    fixture.env({ ...HOSTILE_SECRETS, ONCEPORT_DELIVERY: delivery, ONCEPORT_ANSWER_WAIT_MS: '8000', ONCEPORT_RECONCILE_SWEEP_MS: '300', ONCEPORT_PROBE_BACKOFF_MS: '100', ONCEPORT_PROBE_MAX: '2' }),
  );
  const base = services.intake.url;
  const send = async (method: string, path: string, body: string | undefined, headers: Record<string, string>): Promise<Reply> => {
    const response = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${HOSTILE_KEYS.a}`, 'content-type': 'application/json', ...headers }, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    return { status: response.status, text, messages: messagesOf(text, response.headers.get('content-type') ?? ''), headers: response.headers };
  };
  const mcpHeaders = { accept: 'application/json, text/event-stream' };
  const init = await send('POST', '/mcp', JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'hostile-suite', version: '1' } } }), mcpHeaders);
  const sessionId = init.headers.get('mcp-session-id');
  if (init.status !== 200 || !sessionId) throw new Error(`initialize failed: ${init.status} ${init.text}`);
  const session = { ...mcpHeaders, 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL_VERSION };
  await send('POST', '/mcp', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), session);
  return {
    db,
    target,
    fixture,
    services,
    async eventCount() {
      const result = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM onceport.events');
      return Number(result.rows[0]?.n);
    },
    mcp: (body, headers = {}, options = {}) => send('POST', '/mcp', body, { ...(options.session === false ? mcpHeaders : session), ...headers }),
    rest: (method, path, body, headers = {}) => send(method, path, body, headers),
    async stop() {
      await services.stop();
      await Promise.all([target.stop(), nats?.stop()]);
      await db.drop();
    },
  };
}

function messagesOf(text: string, contentType: string): Record<string, unknown>[] {
  try {
    if (contentType.includes('text/event-stream')) {
      return text.split('\n').filter((line) => line.startsWith('data: ') && line.length > 6).map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
    }
    if (!text) return [];
    const parsed = JSON.parse(text) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]) as Record<string, unknown>[];
  } catch {
    return [];
  }
}
