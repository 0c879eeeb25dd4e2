import { type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { startEventConsumers } from '@onceport/messaging';
import { waitFor } from '@onceport/messaging/testing';
import { CommandHandler, PostgresEventStore, executionStream, loadStream, sessionStream } from '@onceport/event-store';
import { type ServicePorts, openServicePorts, ServiceKitModule, allMigrations, initTracing } from '@onceport/service-kit';
import { AuthorizationModule } from '../authorization.module';
import { approvalIdFor } from '../authorize-execution/decide-authorization';
import {
  type Call,
  KEYS,
  createHandler,
  delivered,
  demoContracts,
  seedAccepted,
  silentLog,
  testDirectory,
} from '../testing/authorization-fixtures';
import { changeVault } from '../vault/change-vault';
import { ApprovalDesk } from './approval-desk';
import { ApprovalExpirySweep } from './approval-expiry.sweep';
import { executionsReadModel } from './executions-read-model';
import { UnfoldableExecutions } from './unfoldable-executions';

/** The approvals and revert API as the service serves it: real PostgreSQL, in-process delivery, HTTP. */
describe('admin API: approvals and revert (real PostgreSQL, HTTP)', () => {
  let db: TestDatabase;
  let runtime: ServicePorts;
  let app: INestApplication;
  let base: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    runtime = await openServicePorts({
      serviceName: 'authorization-test',
      databaseUrl: db.url,
      natsUrl: 'nats://127.0.0.1:1',
      delivery: 'in_process',
      log: silentLog,
    });
    const feature = AuthorizationModule.forOptions({
      directory: testDirectory(),
      contracts: await demoContracts(),
      approvalTtlMs: 60_000,
      approvalSweepMs: 60_000,
      log: silentLog,
    });
    @Module({ imports: [ServiceKitModule.forPorts(runtime), feature] })
    class TestService {}
    app = await NestFactory.create(TestService, { logger: false, bodyParser: false });
    await startEventConsumers(app, runtime.delivery);
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/v1/admin`;
  });
  afterAll(async () => {
    await app?.close();
    await runtime?.close();
    await db?.drop();
  });

  const call = async (method: string, path: string, body?: unknown, key: string | null = KEYS.alice) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      body: (await response.json()) as Record<string, unknown>,
    };
  };

  /** Accepts a call and lets the service's own consumer decide it. */
  async function decided(c: Call): Promise<string> {
    const event = await seedAccepted(runtime.commands, runtime.store, c);
    runtime.delivery.nudge();
    const id = event.stream.id.replace('execution-', '');
    await waitFor(async () => (await runtime.commands.load(executionStream(id))).state.status !== 'accepted', 15_000, 'a decision');
    return id;
  }

  it('every route refuses a missing or wrong key with 401 problem details, an agent key included', async () => {
    const id = approvalIdFor('exe_01JNQ7ZK3M8V2C4D6F8G0H2J4K');
    const routes: [string, string][] = [
      ['GET', '/approvals'],
      ['GET', `/approvals/${id}`],
      ['POST', `/approvals/${id}/grant`],
      ['POST', `/approvals/${id}/reject`],
      ['POST', '/executions/exe_01JNQ7ZK3M8V2C4D6F8G0H2J4K/revert'],
    ];
    for (const [method, path] of routes) {
      for (const key of [null, KEYS.deployBot, 'op_not-a-key']) {
        const answer = await call(method, path, method === 'POST' ? { reason: 'x' } : undefined, key);
        expect({ path, key, status: answer.status, type: answer.type, code: answer.body['code'] }).toEqual({
          path,
          key,
          status: 401,
          type: 'application/problem+json',
          code: 'unauthorized',
        });
      }
    }
  });

  it('per-use: pending in the list and by id, grant needs a reason, grants once, a repeated grant answers 200, a reject after it 409', async () => {
    const executionId = await decided({ actor: 'agent:pay-bot', tool: 'charge_payment' });
    const approvalId = approvalIdFor(executionId);
    const listed = await call('GET', '/approvals');
    expect(listed.status).toBe(200);
    expect((listed.body['approvals'] as { approval_id: string }[]).map((a) => a.approval_id)).toContain(approvalId);
    const view = await call('GET', `/approvals/${approvalId}`);
    expect(view.body).toMatchObject({
      approval_id: approvalId,
      execution_id: executionId,
      status: 'pending',
      kind: 'per_use',
      actor: 'agent:pay-bot',
      tool: 'charge_payment',
      target: { channel: 'http', method: 'POST', url: 'https://deploy.example.com/v1/x' },
      known_outcome: null,
      retries_attached: 0,
    });

    for (const body of [undefined, {}, { reason: '  ' }, { reason: 7 }])
      expect(await call('POST', `/approvals/${approvalId}/grant`, body)).toMatchObject({
        status: 400,
        body: { code: 'reason_required', detail: expect.stringContaining('"reason"') },
      });
    expect((await runtime.commands.load(executionStream(executionId))).state.status).toBe('awaiting_approval');

    const granted = await call('POST', `/approvals/${approvalId}/grant`, { reason: 'customer confirmed by phone' });
    expect(granted).toMatchObject({
      status: 200,
      body: { status: 'granted', decided_by: 'ops:alice', decision_reason: 'customer confirmed by phone' },
    });
    const loaded = await runtime.commands.load(executionStream(executionId));
    expect(loaded.state).toMatchObject({ status: 'authorized', progress: { authorization: { basis: 'approval' } } });
    expect(loaded.events.filter((e) => e.type === 'ApprovalGranted')).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({ approver: 'ops:alice', reason: 'customer confirmed by phone' }),
        metadata: expect.objectContaining({ actor: 'ops:alice' }),
      }),
    ]);

    expect(await call('POST', `/approvals/${approvalId}/grant`, { reason: 'clicked twice' })).toMatchObject({
      status: 200,
      body: { status: 'granted', decision_reason: 'customer confirmed by phone' },
    });
    expect(await call('POST', `/approvals/${approvalId}/reject`, { reason: 'changed my mind' })).toMatchObject({
      status: 409,
      body: { code: 'approval_already_decided' },
    });
    expect((await runtime.commands.load(executionStream(executionId))).version).toBe(loaded.version);
    expect((await call('GET', '/approvals?status=granted')).body['approvals']).toEqual(
      expect.arrayContaining([expect.objectContaining({ approval_id: approvalId })]),
    );
    expect((await call('GET', '/approvals')).body['approvals']).not.toEqual(
      expect.arrayContaining([expect.objectContaining({ approval_id: approvalId })]),
    );
  });

  it('reject: denied approval_rejected, a repeated reject answers 200, a grant after it 409', async () => {
    const executionId = await decided({ actor: 'agent:pay-bot', tool: 'charge_payment' });
    const approvalId = approvalIdFor(executionId);
    expect(await call('POST', `/approvals/${approvalId}/reject`, { reason: 'wrong customer' })).toMatchObject({
      status: 200,
      body: { status: 'rejected', decided_by: 'ops:alice' },
    });
    expect((await runtime.commands.load(executionStream(executionId))).state).toMatchObject({
      status: 'denied',
      denial: { code: 'approval_rejected', reason: 'Rejected by ops:alice: wrong customer' },
    });
    expect(await call('POST', `/approvals/${approvalId}/reject`, { reason: 'again' })).toMatchObject({
      status: 200,
      body: { status: 'rejected', decision_reason: 'wrong customer' },
    });
    expect(await call('POST', `/approvals/${approvalId}/grant`, { reason: 'oops' })).toMatchObject({
      status: 409,
      body: { code: 'approval_already_decided' },
    });
    expect((await call('GET', '/approvals?status=rejected')).body['approvals']).toEqual(
      expect.arrayContaining([expect.objectContaining({ approval_id: approvalId })]),
    );
  });

  it('unknown ids are 404, a bad status or limit is 400 naming the field', async () => {
    expect(await call('GET', `/approvals/${approvalIdFor('exe_01JNQ7ZK3M8V2C4D6F8G0H2J4K')}`)).toMatchObject({
      status: 404,
      body: { code: 'approval_not_found' },
    });
    expect(await call('GET', '/approvals/nonsense')).toMatchObject({ status: 404, body: { code: 'approval_not_found' } });
    expect(await call('POST', '/approvals/nonsense/grant', { reason: 'x' })).toMatchObject({ status: 404 });
    const approved = await decided({ actor: 'agent:deploy-bot', tool: 'get_build_status' });
    expect(await call('GET', `/approvals/${approvalIdFor(approved)}`)).toMatchObject({ status: 404, body: { code: 'approval_not_found' } });
    expect(await call('GET', '/approvals?status=maybe')).toMatchObject({
      status: 400,
      body: { code: 'invalid_status', detail: expect.stringContaining('"status"') },
    });
    expect(await call('GET', '/approvals?limit=0')).toMatchObject({
      status: 400,
      body: { code: 'invalid_limit', detail: expect.stringContaining('"limit"') },
    });
  });

  it('a session approval, once granted, gives the agent process a human session grant: its next call needs none', async () => {
    const first = await decided({ actor: 'agent:human-bot', tool: 'get_build_status', agentProcess: 'runtime-42' });
    const approvalId = approvalIdFor(first);
    expect(await call('GET', `/approvals/${approvalId}`)).toMatchObject({
      body: {
        kind: 'session',
        agent_process: 'runtime-42',
        reason: 'New agent process needs a session grant: runtime-42 of agent:human-bot.',
      },
    });
    await call('POST', `/approvals/${approvalId}/grant`, { reason: 'known runtime' });
    const grants = (await loadStream(runtime.store, sessionStream('agent:human-bot', 'runtime-42'))).events;
    expect(grants).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ basis: 'human', grantedBy: 'ops:alice', agentProcess: 'runtime-42' }) }),
    ]);
    const second = await decided({ actor: 'agent:human-bot', tool: 'get_build_status', agentProcess: 'runtime-42' });
    expect((await runtime.commands.load(executionStream(second))).state).toMatchObject({
      status: 'authorized',
      progress: { authorization: { basis: 'policy' } },
    });
    expect(await loadStream(runtime.store, sessionStream('agent:human-bot', 'runtime-42'))).toMatchObject({ version: 1 });
  });

  it('calls the new process made while it waited are covered by the session once granted; a per-use one still waits for its human', async () => {
    const process = 'runtime-77';
    const [a, b, c] = [
      await decided({ actor: 'agent:human-bot', tool: 'get_build_status', agentProcess: process }),
      await decided({ actor: 'agent:human-bot', tool: 'create_deployment', agentProcess: process }),
      await decided({ actor: 'agent:human-bot', tool: 'charge_payment', agentProcess: process }),
    ];
    const other = await decided({ actor: 'agent:human-bot', tool: 'get_build_status', agentProcess: 'runtime-78' });
    expect(await call('GET', `/approvals/${approvalIdFor(c)}`)).toMatchObject({
      body: { kind: 'session', reason: expect.stringContaining('also uses a per-use credential') },
    });
    expect(await call('POST', `/approvals/${approvalIdFor(a)}/grant`, { reason: 'our nightly runtime' })).toMatchObject({
      status: 200,
      body: { status: 'granted' },
    });
    expect(await call('GET', `/approvals/${approvalIdFor(b)}`)).toMatchObject({
      body: {
        status: 'granted',
        decided_by: 'ops:alice',
        decision_reason: `Covered by the session grant of ${process}, given with approval ${approvalIdFor(a)}.`,
      },
    });
    expect((await runtime.commands.load(executionStream(b))).state).toMatchObject({
      status: 'authorized',
      progress: { authorization: { basis: 'approval' } },
    });
    expect((await runtime.commands.load(executionStream(c))).state.status).toBe('awaiting_approval');
    expect((await runtime.commands.load(executionStream(other))).state.status).toBe('awaiting_approval');
    expect(await call('POST', `/approvals/${approvalIdFor(c)}/grant`, { reason: 'this charge is fine' })).toMatchObject({
      status: 200,
      body: { status: 'granted' },
    });
    expect(await loadStream(runtime.store, sessionStream('agent:human-bot', process))).toMatchObject({ version: 1 });
    await call('POST', `/approvals/${approvalIdFor(other)}/reject`, { reason: 'unknown runtime' });
  });

  it('a locked vault refuses a grant (409 vault_locked) but still takes a rejection', async () => {
    const [a, b] = [
      await decided({ actor: 'agent:pay-bot', tool: 'charge_payment' }),
      await decided({ actor: 'agent:pay-bot', tool: 'charge_payment' }),
    ];
    await changeVault(runtime.commands, 'LockVault', 'ops:alice', 'incident', { causationId: 'test' });
    try {
      expect(await call('POST', `/approvals/${approvalIdFor(a)}/grant`, { reason: 'go' })).toMatchObject({
        status: 409,
        body: { code: 'vault_locked', detail: expect.stringContaining('The vault is locked: incident (by ops:alice).') },
      });
      expect((await runtime.commands.load(executionStream(a))).state.status).toBe('awaiting_approval');
      expect(await call('POST', `/approvals/${approvalIdFor(b)}/reject`, { reason: 'incident' })).toMatchObject({
        status: 200,
        body: { status: 'rejected' },
      });
    } finally {
      await changeVault(runtime.commands, 'UnlockVault', 'ops:alice', 'over', { causationId: 'test' });
    }
  });

  it('revert: a finished execution is reverted once (who and why recorded); an open one is 409, an unknown one 404', async () => {
    const executionId = await decided({ actor: 'agent:deploy-bot', tool: 'get_build_status' });
    const cause = { causationId: 'test:dispatcher', actor: 'svc:dispatcher' };
    await runtime.commands.handle(
      executionStream(executionId),
      (_l, now) => ({ type: 'StartDispatch', data: { dispatcherId: 'd-1', leaseMs: 30_000 }, metadata: { now } }),
      cause,
    );
    expect(await call('POST', `/executions/${executionId}/revert`, { reason: 'rolled back' })).toMatchObject({
      status: 409,
      body: { code: 'not_revertible', detail: expect.stringContaining('dispatched') },
    });
    await runtime.commands.handle(
      executionStream(executionId),
      (_l, now) => ({ type: 'ObserveOutcome', data: { attempt: 1, targetStatus: 200, succeeded: true, result: null }, metadata: { now } }),
      cause,
    );

    expect(await call('POST', `/executions/${executionId}/revert`, {})).toMatchObject({ status: 400, body: { code: 'reason_required' } });
    expect(await call('POST', `/executions/${executionId}/revert`, { reason: 'build record deleted upstream' })).toEqual({
      status: 200,
      type: expect.stringContaining('application/json'),
      body: { execution_id: executionId, state: 'reverted', reverted_by: 'ops:alice' },
    });
    const loaded = await runtime.commands.load(executionStream(executionId));
    expect(loaded.events.at(-1)).toMatchObject({
      type: 'ExecutionReverted',
      data: { by: 'ops:alice', reason: 'build record deleted upstream' },
      metadata: { actor: 'ops:alice' },
    });
    expect(await call('POST', `/executions/${executionId}/revert`, { reason: 'again' })).toMatchObject({
      status: 200,
      body: { reverted_by: 'ops:alice' },
    });
    expect((await runtime.commands.load(executionStream(executionId))).version).toBe(loaded.version);

    expect(await call('POST', '/executions/exe_01JNQ7ZK3M8V2C4D6F8G0H2J4K/revert', { reason: 'x' })).toMatchObject({
      status: 404,
      body: { code: 'execution_not_found' },
    });
    expect(await call('POST', '/executions/not-an-id/revert', { reason: 'x' })).toMatchObject({ status: 404 });
  });
});

/** The expiry sweep on its own database: no service consumer there to decide the calls with its own TTL. */
describe('approval expiry (real PostgreSQL)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  let commands: CommandHandler;

  beforeAll(() => initTracing({ serviceName: 'authorization-test', env: {} }));
  beforeEach(async () => {
    db = await createTestDatabase(allMigrations.filter((m) => !m.id.startsWith('00')));
    store = new PostgresEventStore(db.pool);
    commands = new CommandHandler(store);
  });
  afterEach(() => db.drop());

  it('an approval nobody decides in time: the sweep denies it as approval_expired; grant and reject then answer 409', async () => {
    // Long enough that the first sweep surely runs before the deadline, even on a loaded machine.
    const handler = await createHandler(store, commands, { approvalTtlMs: 4_000 });
    const desk = new ApprovalDesk({
      db: db.pool,
      readModel: executionsReadModel(db.pool, silentLog),
      commands,
      contracts: await demoContracts(),
      policyVersion: () => 'v',
      mayUse: () => true,
      log: silentLog,
      unfoldable: new UnfoldableExecutions(db.pool, store, commands, silentLog),
    });
    const sweep = new ApprovalExpirySweep(desk, 60_000, silentLog);
    const admin = { id: 'ops:alice', apiKeysSha256: [] };
    const cause = { causationId: 'test' };
    const swept = await seedAccepted(commands, store, { actor: 'agent:pay-bot', tool: 'charge_payment' });
    const unswept = await seedAccepted(commands, store, { actor: 'agent:pay-bot', tool: 'charge_payment' });
    await handler.handle(swept, delivered);
    await handler.handle(unswept, delivered);
    const [sweptId, unsweptId] = [swept, unswept].map((e) => e.stream.id.replace('execution-', '')) as [string, string];
    expect(await sweep.sweepOnce()).toBe(0);
    const { state: waiting } = await commands.load(executionStream(unsweptId));
    if (waiting.status !== 'awaiting_approval') throw new Error(`expected awaiting_approval, got ${waiting.status}`);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(waiting.approvalRequest.expiresAt) - Date.now() + 100)));

    // The approver sees it expired at once; a late grant records the expiry and is refused.
    expect(await desk.get(approvalIdFor(unsweptId))).toMatchObject({ status: 'expired', decided_by: null });
    await expect(desk.decide(approvalIdFor(unsweptId), 'grant', admin, 'late', cause)).rejects.toMatchObject({
      status: 409,
      code: 'approval_expired',
    });
    expect((await commands.load(executionStream(unsweptId))).state).toMatchObject({
      status: 'denied',
      denial: { code: 'approval_expired' },
    });

    expect(await sweep.sweepOnce()).toBe(1);
    expect(await sweep.sweepOnce()).toBe(0);
    expect((await commands.load(executionStream(sweptId))).state).toMatchObject({
      status: 'denied',
      denial: { code: 'approval_expired', reason: expect.stringContaining(`Approval ${approvalIdFor(sweptId)} expired at`) },
    });
    await expect(desk.decide(approvalIdFor(sweptId), 'reject', admin, 'late', cause)).rejects.toMatchObject({
      status: 409,
      code: 'approval_expired',
    });
    expect(await desk.get(approvalIdFor(sweptId))).toMatchObject({ status: 'expired', decided_by: 'svc:authorization' });
    expect((await desk.list('expired', 100)).map((v) => v.execution_id).sort()).toEqual([sweptId, unsweptId].sort());
    expect(await desk.list('pending', 100)).toEqual([]);
  });

  it('lists by status before the limit: the one granted approval is found behind newer rejected ones', async () => {
    const handler = await createHandler(store, commands);
    const desk = new ApprovalDesk({
      db: db.pool,
      readModel: executionsReadModel(db.pool, silentLog),
      commands,
      contracts: await demoContracts(),
      policyVersion: () => 'v',
      mayUse: () => true,
      log: silentLog,
      unfoldable: new UnfoldableExecutions(db.pool, store, commands, silentLog),
    });
    const admin = { id: 'ops:alice', apiKeysSha256: [] };
    const ask = async (): Promise<string> => {
      const call = await seedAccepted(commands, store, { actor: 'agent:pay-bot', tool: 'charge_payment' });
      await handler.handle(call, delivered);
      // Apart in time, so "most recent" is unambiguous.
      await new Promise((resolve) => setTimeout(resolve, 5));
      return call.stream.id.replace('execution-', '');
    };
    const granted = await ask();
    const rejected = [await ask(), await ask(), await ask()];
    const pending = await ask();
    await desk.decide(approvalIdFor(granted), 'grant', admin, 'ok', { causationId: 'test' });
    for (const id of rejected) await desk.decide(approvalIdFor(id), 'reject', admin, 'no', { causationId: 'test' });

    expect((await desk.list('granted', 1)).map((v) => v.execution_id)).toEqual([granted]);
    expect((await desk.list('rejected', 2)).map((v) => v.execution_id)).toEqual(rejected.slice(1));
    expect((await desk.list('pending', 1)).map((v) => v.execution_id)).toEqual([pending]);
    expect((await desk.list('expired', 10)).map((v) => v.execution_id)).toEqual([]);
    expect((await desk.list('all', 2)).map((v) => v.execution_id)).toEqual([rejected[2], pending]);
  });

  it('a grant is refused (409 actor_not_allowed) once the actors file in force no longer lets the actor call the tool', async () => {
    const handler = await createHandler(store, commands);
    const desk = new ApprovalDesk({
      db: db.pool,
      readModel: executionsReadModel(db.pool, silentLog),
      commands,
      contracts: await demoContracts(),
      policyVersion: () => 'v2',
      mayUse: () => false,
      log: silentLog,
      unfoldable: new UnfoldableExecutions(db.pool, store, commands, silentLog),
    });
    const call = await seedAccepted(commands, store, { actor: 'agent:pay-bot', tool: 'charge_payment' });
    await handler.handle(call, delivered);
    const approvalId = approvalIdFor(call.stream.id.replace('execution-', ''));
    const admin = { id: 'ops:alice', apiKeysSha256: [] };
    await expect(desk.decide(approvalId, 'grant', admin, 'ok', { causationId: 'test' })).rejects.toMatchObject({
      status: 409,
      code: 'actor_not_allowed',
      message: expect.stringContaining('policy v2'),
    });
    expect(await desk.decide(approvalId, 'reject', admin, 'policy changed', { causationId: 'test' })).toMatchObject({ status: 'rejected' });
  });
});
