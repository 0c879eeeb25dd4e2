import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { TestNatsServer } from '@onceport/messaging/testing';
import { type ServicePorts, openServicePorts } from '@onceport/service-kit';
import { type AppProcess, startAppProcess, writeGatewayFixture } from '@onceport/gateway-harness';
import { executionStream } from '@onceport/event-store';

const KEY = 'key-shutdown-a';
// Long enough for the outcome written during the drain to reach the waiting call on a loaded machine.
const GRACE_MS = 12_000;

interface Reply {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/**
 * SIGTERM to intake as its own process (real PostgreSQL, a private JetStream; no authorization or
 * dispatcher, so the test moves executions itself): calls waiting for an outcome are answered — with
 * the outcome if it lands within the grace, else with the state they are in and what to do next —
 * never with a reset connection; new connections are refused; the process exits 0.
 */
describe('intake shutdown: stop accepting, answer the calls in flight, then stop', () => {
  let db: TestDatabase;
  let nats: TestNatsServer;
  let intake: AppProcess;
  let runtime: ServicePorts;

  beforeAll(async () => {
    [db, nats] = await Promise.all([createTestDatabase(), TestNatsServer.start()]);
    // The target is never reached: nothing dispatches here.
    const fixture = writeGatewayFixture('http://127.0.0.1:9', [{ id: 'agent:a', key: KEY, tools: '*' }], db.url, nats.url);
    intake = await startAppProcess(
      'intake',
      fixture.env({ ONCEPORT_ANSWER_WAIT_MS: '120000', ONCEPORT_MAX_WAIT_MS: '120000', ONCEPORT_SHUTDOWN_GRACE_MS: String(GRACE_MS) }),
    );
    runtime = await openServicePorts({
      serviceName: 'shutdown-test',
      databaseUrl: db.url,
      delivery: 'in_process',
      natsUrl: 'nats://127.0.0.1:1',
      poolSize: 4,
      log: () => undefined,
    });
  });
  afterAll(async () => {
    await intake?.kill();
    await runtime?.close();
    await nats?.stop();
    await db?.drop();
  });

  const deploy = (project: string) => ({ project, environment: 'staging', version: '1.0.0' });

  async function post(project: string): Promise<Reply> {
    const response = await fetch(`${intake.url}/v1/executions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'create_deployment', arguments: deploy(project) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function acceptedId(project: string): Promise<string> {
    for (let i = 0; i < 400; i += 1) {
      const found = await db.pool.query<{ id: string }>(
        "SELECT data->>'executionId' AS id FROM onceport.events WHERE event_type = 'ExecutionAccepted' AND data->'arguments'->>'project' = $1",
        [project],
      );
      if (found.rows[0]) return found.rows[0].id;
      await sleep(25);
    }
    throw new Error(`no execution accepted for ${project}:\n${intake.output()}`);
  }

  /** Plays authorization and dispatcher: the target answered 201. */
  async function complete(executionId: string): Promise<void> {
    const context = { causationId: 'shutdown-test' };
    await runtime.commands.handle(
      executionStream(executionId),
      (_l, now) => ({ type: 'AuthorizeExecution', data: { basis: 'policy', policyVersion: 'test' }, metadata: { now } }),
      context,
    );
    await runtime.commands.handle(
      executionStream(executionId),
      (_l, now) => ({ type: 'StartDispatch', data: { dispatcherId: 'test-dispatcher', leaseMs: 30_000 }, metadata: { now } }),
      context,
    );
    const result = await runtime.results.put(Buffer.from(JSON.stringify({ id: 'dep_1' })), 'application/json');
    await runtime.commands.handle(
      executionStream(executionId),
      (_l, now) => ({ type: 'ObserveOutcome', data: { attempt: 1, targetStatus: 201, succeeded: true, result }, metadata: { now } }),
      context,
    );
  }

  /** Resolves once the process no longer takes connections (SIGTERM handled). */
  async function refusingConnections(): Promise<void> {
    for (let i = 0; i < 400; i += 1) {
      const refused = await fetch(`${intake.url}/healthz`, { headers: { connection: 'close' } }).then(
        (r) => r.body?.cancel().then(() => false) ?? false,
        () => true,
      );
      if (refused) return;
      await sleep(25);
    }
    throw new Error(`intake kept accepting connections after SIGTERM:\n${intake.output()}`);
  }

  it('calls in flight get a proper answer with their execution id, new connections are refused, exit 0', async () => {
    const mcp = new Client({ name: 'shutdown-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${intake.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }),
    );

    const unanswered = post('in-flight-rest');
    const outcomeInGrace = post('outcome-in-grace');
    const viaMcp = mcp.callTool({ name: 'create_deployment', arguments: deploy('in-flight-mcp') }, undefined, { timeout: 110_000 });
    const [restId, graceId, mcpId] = await Promise.all([
      acceptedId('in-flight-rest'),
      acceptedId('outcome-in-grace'),
      acceptedId('in-flight-mcp'),
    ]);

    const exited = intake.stop(60_000);
    await refusingConnections();
    // The outcome lands while intake drains: the waiting call still hears it (the watcher runs on).
    await complete(graceId);

    const graced = await outcomeInGrace;
    expect(graced.status).toBe(200);
    expect(graced.body).toMatchObject({
      execution_id: graceId,
      state: 'completed',
      target_status: 201,
      result: { body: { id: 'dep_1' } },
    });

    // The rest are answered at the grace with the state they are in and how to ask for it.
    const rest = await unanswered;
    expect(rest.status).toBe(202);
    expect(rest.body).toMatchObject({ execution_id: restId, state: 'accepted', replay: false });
    expect(rest.body['next_step']).toEqual(expect.stringContaining(`execution_id "${restId}"`));
    expect(rest.body['next_step']).toEqual(expect.stringContaining(`GET /v1/executions/${restId}`));

    const answer = (await viaMcp) as CallToolResult;
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent).toMatchObject({ execution_id: mcpId, state: 'accepted' });
    await mcp.close().catch(() => undefined);

    expect(await exited).toBe(0);
    // Nothing was lost: the executions are in the store, where a retry or a status call finds them.
    expect((await runtime.commands.load(executionStream(restId))).state.status).toBe('accepted');
  }, 120_000);
});
