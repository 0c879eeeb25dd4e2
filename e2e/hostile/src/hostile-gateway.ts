import { Pool, escapeIdentifier } from 'pg';
import { createTestDatabase } from '@onceport/event-store/testing';
import { TestNatsServer } from '@onceport/messaging/testing';
import { startGateway } from '@onceport/gateway-harness';
import { type TestTarget, startTestTarget } from '@onceport/test-target';
import { HOSTILE_ACTORS, HOSTILE_KEYS, HOSTILE_SECRETS } from './hostile-actors';

/**
 * The gateway the corpus is sent to, aimed at the test target over a fresh database:
 * `jetstream` — the four services as processes over a private JetStream; `in_process` — the same
 * processes with the embedded start's delivery (each consumer tails the store); `embedded` — the
 * one-process `npm start` itself, with this suite's contracts and actors.
 */
export interface HostileGateway {
  /** The gateway's own database. */
  readonly pool: Pool;
  readonly target: TestTarget;
  readonly adminKey: string;
  readonly intakeUrl: string;
  /** Where the approvals admin API is served (authorization, or the one embedded process). */
  readonly authorizationUrl: string;
  /** Everything intake printed so far (its log lines). */
  intakeLog(): string;
  /** Everything authorization (the admin API) printed so far; the embedded start's one process prints both. */
  authorizationLog(): string;
  /** Rows of every table in the `onceport` schema, by table name: a refused call must leave them unchanged. */
  rowCounts(): Promise<Record<string, number>>;
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

export type Delivery = 'jetstream' | 'in_process' | 'embedded';

/** Quick settling, so the last test's dropped answer is probed within seconds. */
const SETTLE_FAST = {
  ONCEPORT_ANSWER_WAIT_MS: '8000',
  ONCEPORT_RECONCILE_SWEEP_MS: '300',
  ONCEPORT_PROBE_BACKOFF_MS: '100',
  ONCEPORT_PROBE_MAX: '2',
};

interface Started {
  readonly pool: Pool;
  readonly intakeUrl: string;
  readonly authorizationUrl: string;
  readonly adminKey: string;
  intakeLog(): string;
  authorizationLog(): string;
  stop(): Promise<void>;
}

export async function startHostileGateway(delivery: Delivery): Promise<HostileGateway> {
  const target = await startTestTarget();
  target.setBehavior({ honour_idempotency: false });
  const started = delivery === 'embedded' ? await startEmbedded(target) : await startProcesses(target, delivery);
  const send = async (method: string, path: string, body: string | undefined, headers: Record<string, string>): Promise<Reply> => {
    const response = await fetch(`${started.intakeUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${HOSTILE_KEYS.a}`, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    return {
      status: response.status,
      text,
      messages: messagesOf(text, response.headers.get('content-type') ?? ''),
      headers: response.headers,
    };
  };
  const mcpHeaders = { accept: 'application/json, text/event-stream' };
  const init = await send(
    'POST',
    '/mcp',
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'hostile-suite', version: '1' } },
    }),
    mcpHeaders,
  );
  const sessionId = init.headers.get('mcp-session-id');
  if (init.status !== 200 || !sessionId) throw new Error(`initialize failed: ${init.status} ${init.text}`);
  const session = { ...mcpHeaders, 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL_VERSION };
  await send('POST', '/mcp', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), session);
  return {
    pool: started.pool,
    target,
    adminKey: started.adminKey,
    intakeUrl: started.intakeUrl,
    authorizationUrl: started.authorizationUrl,
    intakeLog: () => started.intakeLog(),
    authorizationLog: () => started.authorizationLog(),
    rowCounts: () => rowCounts(started.pool),
    mcp: (body, headers = {}, options = {}) =>
      send('POST', '/mcp', body, { ...(options.session === false ? mcpHeaders : session), ...headers }),
    rest: (method, path, body, headers = {}) => send(method, path, body, headers),
    async stop() {
      await started.stop();
      await target.stop();
    },
  };
}

async function startProcesses(target: TestTarget, delivery: 'jetstream' | 'in_process'): Promise<Started> {
  const [db, nats] = await Promise.all([createTestDatabase(), delivery === 'jetstream' ? TestNatsServer.start() : null]);
  const gateway = await startGateway({
    targetUrl: target.url,
    actors: HOSTILE_ACTORS,
    database: db,
    ...(nats ? { nats } : {}),
    env: { ...HOSTILE_SECRETS, ...SETTLE_FAST, ONCEPORT_DELIVERY: delivery },
  });
  return {
    pool: db.pool,
    intakeUrl: gateway.intakeUrl,
    authorizationUrl: gateway.authorizationUrl,
    adminKey: gateway.adminKey,
    intakeLog: () => gateway.output('intake'),
    authorizationLog: () => gateway.output('authorization'),
    async stop() {
      await gateway.stop();
      await nats?.stop();
      await db.drop();
    },
  };
}

/** `npm start` with this suite's contracts and actors (no demo), on free ports and a private data dir. */
async function startEmbedded(target: TestTarget): Promise<Started> {
  const gateway = await startGateway({
    mode: 'embedded',
    targetUrl: target.url,
    actors: HOSTILE_ACTORS,
    env: { ...HOSTILE_SECRETS, ...SETTLE_FAST },
  });
  const pool = new Pool({ connectionString: gateway.databaseUrl, max: 4 });
  return {
    pool,
    intakeUrl: gateway.intakeUrl,
    authorizationUrl: gateway.authorizationUrl,
    adminKey: gateway.adminKey,
    intakeLog: () => gateway.output('intake'),
    authorizationLog: () => gateway.output('authorization'),
    async stop() {
      await pool.end();
      await gateway.stop();
    },
  };
}

/** Counted in one statement, so a snapshot is of one moment. */
async function rowCounts(pool: Pool): Promise<Record<string, number>> {
  const tables = await pool.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'onceport' AND table_type = 'BASE TABLE'`,
  );
  const counts = await pool.query<{ name: string; n: string }>(
    tables.rows
      .map(({ name }, i) => `SELECT $${i + 1}::text AS name, count(*) AS n FROM onceport.${escapeIdentifier(name)}`)
      .join(' UNION ALL '),
    tables.rows.map(({ name }) => name),
  );
  return Object.fromEntries(counts.rows.map((row) => [row.name, Number(row.n)]));
}

function messagesOf(text: string, contentType: string): Record<string, unknown>[] {
  try {
    if (contentType.includes('text/event-stream')) {
      return text
        .split('\n')
        .filter((line) => line.startsWith('data: ') && line.length > 6)
        .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
    }
    if (!text) return [];
    const parsed = JSON.parse(text) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]) as Record<string, unknown>[];
  } catch {
    return [];
  }
}
