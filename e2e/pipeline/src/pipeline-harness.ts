import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { TestNatsServer } from '@onceport/messaging/testing';
import { type AppProcess, type Gateway, type GatewayFixture, startGateway } from '@onceport/gateway-harness';
import { type TestTarget, startTestTarget } from '@onceport/test-target';

/** Secrets configured for the demo contracts' credential refs; scenario 8 looks for leaks of these. */
export const SECRETS = {
  ONCEPORT_CREDENTIAL_DEPLOY_API: 'sekret-deploy-4f1e9c2a7b',
  ONCEPORT_CREDENTIAL_MAIL_API: 'sekret-mail-8d3c1f0e55',
  ONCEPORT_CREDENTIAL_PAYMENTS_LIVE: 'sekret-pay-77aa91c3d0',
  ONCEPORT_CREDENTIAL_CI_READONLY: 'sekret-ci-0b6e2d4f19',
};

export const KEYS = { a: 'key-agent-a-3k9s', b: 'key-agent-b-7q2w', limited: 'key-limited-5t8e', throttled: 'key-throttled-2m6d' };

/** Three Onceport services as separate processes over a private JetStream and a fresh database, aimed at a real test target. */
export interface Pipeline {
  readonly db: TestDatabase;
  readonly nats: TestNatsServer;
  readonly target: TestTarget;
  readonly gateway: Gateway;
  readonly fixture: GatewayFixture;
  readonly intake: AppProcess;
  readonly authorization: AppProcess;
  readonly dispatcher: AppProcess;
  readonly reconciler: AppProcess;
  readonly traceFile: string;
  stop(): Promise<void>;
}

export async function startPipeline(): Promise<Pipeline> {
  const [db, nats, target] = await Promise.all([createTestDatabase(), TestNatsServer.start(), startTestTarget()]);
  const actors = [
    { id: 'agent:a', key: KEYS.a, tools: '*' as const },
    { id: 'agent:b', key: KEYS.b, tools: '*' as const },
    { id: 'agent:limited', key: KEYS.limited, tools: ['get_build_status'] },
    // One call, then one token every 100 s: its second call inside a scenario is over the rate.
    { id: 'agent:throttled', key: KEYS.throttled, tools: ['get_build_status'], limits: { rate_per_second: 0.01, burst: 1 } },
  ];
  const env = {
    ...SECRETS,
    ONCEPORT_ANSWER_WAIT_MS: '8000',
    ONCEPORT_RECONCILE_SWEEP_MS: '300',
    ONCEPORT_PROBE_BACKOFF_MS: '100',
    ONCEPORT_PROBE_MAX: '2',
  };
  const gateway = await startGateway({ targetUrl: target.url, actors, database: db, nats, env, trace: true });
  noTargetDedupe(target);
  return {
    db,
    nats,
    target,
    gateway,
    fixture: gateway.fixture,
    intake: gateway.process('intake'),
    authorization: gateway.process('authorization'),
    dispatcher: gateway.process('dispatcher'),
    reconciler: gateway.process('reconciler'),
    traceFile: gateway.traceFile,
    async stop() {
      await gateway.stop();
      await Promise.all([target.stop(), nats.stop()]);
      await db.drop();
    },
  };
}

/**
 * The demo contracts send the execution id as Idempotency-Key; a target honouring it would hide a
 * second dispatch of one execution. Off, every send the gateway makes shows as one more effect.
 */
function noTargetDedupe(target: TestTarget): void {
  target.setBehavior({ honour_idempotency: false });
}

export async function mcpClient(pipeline: Pipeline, key: string): Promise<Client> {
  const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${pipeline.intake.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

export interface Answer {
  execution_id: string;
  state: string;
  replay: boolean;
  attached: boolean;
  target_status: number | null;
  next_step: string;
  result: { body: unknown } | null;
  denial: { code: string; reason: string } | null;
}

export function answerOf(result: unknown): Answer {
  return (result as CallToolResult).structuredContent as unknown as Answer;
}

export async function rest(
  pipeline: Pipeline,
  method: string,
  path: string,
  key: string | null,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; text: string; headers: Headers }> {
  const response = await fetch(`${pipeline.intake.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, text, headers: response.headers };
}

export async function timeline(pipeline: Pipeline, executionId: string, key: string): Promise<string[]> {
  const { body } = await rest(pipeline, 'GET', `/v1/executions/${executionId}`, key);
  return ((body['timeline'] as { type: string }[]) ?? []).map((entry) => entry.type);
}

export async function executionCount(pipeline: Pipeline): Promise<number> {
  const result = await pipeline.db.pool.query<{ n: string }>(
    "SELECT count(*) AS n FROM onceport.events WHERE event_type = 'ExecutionAccepted'",
  );
  return Number(result.rows[0]?.n);
}

/** Stored events whose data holds `text` (e.g. a project name only one call used). */
export async function eventsMentioning(pipeline: { db: TestDatabase }, text: string): Promise<number> {
  const result = await pipeline.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM onceport.events WHERE data::text LIKE $1', [
    `%${text}%`,
  ]);
  return Number(result.rows[0]?.n);
}

/** The execution's event types in stream order, read from the event store itself (not through intake). */
export async function storedEventTypes(pipeline: { db: TestDatabase }, executionId: string): Promise<string[]> {
  const result = await pipeline.db.pool.query<{ event_type: string }>(
    'SELECT event_type FROM onceport.events WHERE stream_id = $1 ORDER BY stream_version',
    [`execution-${executionId}`],
  );
  return result.rows.map((row) => row.event_type);
}

export async function dispatchStartedCount(pipeline: { db: TestDatabase }, executionId: string): Promise<number> {
  return (await storedEventTypes(pipeline, executionId)).filter((type) => type === 'DispatchStarted').length;
}

export interface ExportedSpan {
  traceId: string;
  parentSpanId: string | null;
  name: string;
  service: string;
  attributes: Record<string, unknown>;
}

export function spans(pipeline: Pipeline): ExportedSpan[] {
  try {
    return readFileSync(pipeline.traceFile, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  } catch {
    return [];
  }
}

export async function until<T>(probe: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Authorization and dispatcher, and two intake replicas, for what must work across replicas (resume, tasks). */
export interface TwoIntakes {
  readonly db: TestDatabase;
  readonly target: TestTarget;
  readonly intake1: AppProcess;
  readonly intake2: AppProcess;
  /** To kill and restart a replica. */
  readonly gateway: Gateway;
  stop(): Promise<void>;
}

export async function startTwoIntakes(): Promise<TwoIntakes> {
  const [db, nats, target] = await Promise.all([createTestDatabase(), TestNatsServer.start(), startTestTarget()]);
  const actors = [
    { id: 'agent:a', key: KEYS.a, tools: '*' as const },
    { id: 'agent:b', key: KEYS.b, tools: '*' as const },
  ];
  noTargetDedupe(target);
  const gateway = await startGateway({
    targetUrl: target.url,
    actors,
    database: db,
    nats,
    env: { ...SECRETS, ONCEPORT_ANSWER_WAIT_MS: '8000' },
    replicas: { intake: 2 },
    startOrder: [['authorization', 'dispatcher'], ['intake']],
  });
  const [intake1, intake2] = [gateway.process('intake', 0), gateway.process('intake', 1)];
  return {
    db,
    target,
    intake1,
    intake2,
    gateway,
    async stop() {
      await gateway.stop();
      await Promise.all([target.stop(), nats.stop()]);
      await db.drop();
    },
  };
}
