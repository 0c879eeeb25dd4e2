import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { TestNatsServer } from '@onceport/messaging/testing';
import { type AppProcess, type Gateway, type GatewayFixture, startGateway } from '@onceport/gateway-harness';
import { type TestTarget, startTestTarget } from '@onceport/test-target';

/** Secrets for the demo contracts' credential refs: the approver's view must never show them. */
export const SECRETS = {
  ONCEPORT_CREDENTIAL_DEPLOY_API: 'sekret-deploy-1c7e0a9b42',
  ONCEPORT_CREDENTIAL_MAIL_API: 'sekret-mail-5e2b8d7f10',
  ONCEPORT_CREDENTIAL_PAYMENTS_LIVE: 'sekret-pay-93fd0c6a1e',
  ONCEPORT_CREDENTIAL_CI_READONLY: 'sekret-ci-7a4c2e9d03',
};

export const AGENT_KEY = 'key-agent-ops-4r8t';
/** An actor whose new agent processes need a human's session grant. */
export const SUPERVISED_KEY = 'key-agent-supervised-9w3e';

/** The four services as separate processes over a private JetStream and a fresh database, aimed at a real test target. */
export interface Operators {
  readonly db: TestDatabase;
  readonly nats: TestNatsServer;
  readonly target: TestTarget;
  readonly gateway: Gateway;
  readonly fixture: GatewayFixture;
  readonly intake: AppProcess;
  readonly dispatcher: AppProcess;
  readonly reconciler: AppProcess;
  /** Replaced by {@link Operators.restartAuthorization}. */
  authorization: AppProcess;
  /** Restarts the authorization service with extra settings (an operator changing its configuration). */
  restartAuthorization(extra: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
}

export async function startOperators(): Promise<Operators> {
  const [db, nats, target] = await Promise.all([createTestDatabase(), TestNatsServer.start(), startTestTarget()]);
  const actors = [
    { id: 'agent:ops', key: AGENT_KEY, tools: '*' as const },
    { id: 'agent:supervised', key: SUPERVISED_KEY, tools: '*' as const, sessionGrant: 'human' as const },
  ];
  // One dispatch at a time: the vault scenario queues a call, authorized, behind a dispatch the target holds.
  const env = {
    ...SECRETS,
    ONCEPORT_ANSWER_WAIT_MS: '8000',
    ONCEPORT_RECONCILE_SWEEP_MS: '300',
    ONCEPORT_APPROVAL_SWEEP_MS: '200',
    ONCEPORT_DISPATCH_CONCURRENCY: '1',
  };
  const gateway = await startGateway({ targetUrl: target.url, actors, database: db, nats, env });
  const operators: Operators = {
    db,
    nats,
    target,
    gateway,
    fixture: gateway.fixture,
    intake: gateway.process('intake'),
    authorization: gateway.process('authorization'),
    dispatcher: gateway.process('dispatcher'),
    reconciler: gateway.process('reconciler'),
    async restartAuthorization(extra) {
      operators.authorization = await gateway.restart('authorization', { env: extra, graceful: true });
    },
    async stop() {
      // authorization may have been restarted: the gateway stops the one running now.
      await gateway.stop();
      await Promise.all([target.stop(), nats.stop()]);
      await db.drop();
    },
  };
  return operators;
}

export interface Reply {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

async function send(url: string, method: string, key: string | null, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** An agent's REST call through intake: one tool call, answered once it is decided (or waiting). */
export function agentCall(
  ops: Operators,
  tool: string,
  args: Record<string, unknown>,
  as: { key?: string; agentProcess?: string } = {},
): Promise<Reply> {
  const headers: Record<string, string> = as.agentProcess ? { 'onceport-agent-process': as.agentProcess } : {};
  return send(
    `${ops.intake.url}/v1/executions`,
    'POST',
    as.key ?? AGENT_KEY,
    { tool, arguments: args, intent_scope: 'run:operators' },
    headers,
  );
}

/** A REST agent process id issued by intake to the actor of `key` (POST /v1/agent-processes). */
export async function issueAgentProcess(ops: Operators, key = AGENT_KEY): Promise<string> {
  const issued = await send(`${ops.intake.url}/v1/agent-processes`, 'POST', key);
  if (issued.status !== 201 || typeof issued.body['agent_process'] !== 'string')
    throw new Error(`POST /v1/agent-processes answered ${issued.status}: ${JSON.stringify(issued.body)}`);
  return issued.body['agent_process'];
}

/** What the agent is told about an execution now. */
export function agentStatus(ops: Operators, executionId: string, key = AGENT_KEY): Promise<Reply> {
  return send(`${ops.intake.url}/v1/executions/${executionId}`, 'GET', key);
}

/** An operator's call to the authorization service's admin API. */
export function admin(
  ops: Operators,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  key: string | null = ops.fixture.adminKey,
): Promise<Reply> {
  return send(`${ops.authorization.url}/v1/admin${path}`, method, key, body);
}

/** How many times the event store recorded an event of this type for an execution. */
export async function eventCount(ops: Operators, executionId: string, type: string): Promise<number> {
  const result = await ops.db.pool.query<{ n: string }>(
    'SELECT count(*) AS n FROM onceport.events WHERE stream_id = $1 AND event_type = $2',
    [`execution-${executionId}`, type],
  );
  return Number(result.rows[0]?.n);
}

/** The execution an agent's call with these arguments became, once intake accepted it; null before. */
export async function executionWithArgument(ops: Operators, name: string, value: string): Promise<string | null> {
  const result = await ops.db.pool.query<{ stream_id: string }>(
    `SELECT stream_id FROM onceport.events WHERE event_type = 'ExecutionAccepted' AND data->'arguments'->>$1 = $2`,
    [name, value],
  );
  return result.rows[0]?.stream_id.replace(/^execution-/, '') ?? null;
}

export async function until<T>(probe: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
