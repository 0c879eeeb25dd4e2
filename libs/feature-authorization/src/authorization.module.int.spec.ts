import { type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { startEventConsumers } from '@onceport/messaging';
import { waitFor } from '@onceport/messaging/testing';
import { type ServicePorts, openServicePorts, ServiceKitModule } from '@onceport/service-kit';
import { AuthorizationModule } from './authorization.module';
import { KEYS, demoContracts, seedAccepted, silentLog, testDirectory } from './testing/authorization-fixtures';
import { executionStream } from '@onceport/event-store';

/** The module as a service wires it (runtime, consumer, admin API), in-process delivery, real PostgreSQL. */
describe('AuthorizationModule (real PostgreSQL, in-process delivery, HTTP)', () => {
  let db: TestDatabase;
  let runtime: ServicePorts;
  let app: INestApplication;
  let url: string;

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
    const address = app.getHttpServer().address() as { port: number };
    url = `http://127.0.0.1:${address.port}/v1/admin/vault`;
  });
  afterAll(async () => {
    await app?.close();
    await runtime?.close();
    await db?.drop();
  });

  const post = (path: 'lock' | 'unlock', body: string | undefined, key: string | null = KEYS.alice) =>
    fetch(`${url}/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      ...(body === undefined ? {} : { body }),
    });

  it('refuses calls without an admin key with 401 problem details, an agent key included, without reading the body', async () => {
    for (const response of [
      await post('lock', '{"reason":"x"}', null),
      await post('lock', '{"reason":"x"}', KEYS.deployBot),
      await fetch(url),
    ]) {
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="onceport-admin"');
      expect(await response.json()).toMatchObject({
        type: 'https://onceport.dev/problems/unauthorized',
        code: 'unauthorized',
        status: 401,
        title: 'Admin key required',
      });
    }
    expect(await (await post('lock', 'not json', null)).json()).toMatchObject({ status: 401 });
  });

  it('refuses a lock without a reason, with a blank one, or with a malformed or huge body: 400/413 problem details', async () => {
    for (const body of [undefined, '{}', '{"reason":"   "}', '{"reason": 42}', '[]']) {
      const response = await post('lock', body);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'reason_required', detail: expect.stringContaining('"reason"') });
    }
    expect(await (await post('lock', '{"reason":')).json()).toMatchObject({ status: 400, code: 'malformed_json' });
    expect((await post('lock', JSON.stringify({ reason: 'x'.repeat(20_000) }))).status).toBe(413);
    expect(await (await fetch(url, { headers: { authorization: `Bearer ${KEYS.alice}` } })).json()).toMatchObject({
      status: 'unlocked',
      version: 0,
    });
  });

  it('locks (idempotently), denies new calls while locked, and unlocks', async () => {
    const locked = await post('lock', '{"reason":"deploy key leaked"}');
    expect(locked.status).toBe(200);
    expect(await locked.json()).toMatchObject({
      status: 'locked',
      by: 'ops:alice',
      reason: 'deploy key leaked',
      changed: true,
      version: 1,
    });
    expect(await (await post('lock', '{"reason":"again"}')).json()).toMatchObject({
      status: 'locked',
      reason: 'deploy key leaked',
      changed: false,
      version: 1,
    });
    expect(await (await fetch(url, { headers: { authorization: `Bearer ${KEYS.alice}` } })).json()).toMatchObject({
      status: 'locked',
      by: 'ops:alice',
    });

    const denied = await seedAccepted(runtime.commands, runtime.store, { actor: 'agent:deploy-bot', tool: 'get_build_status' });
    runtime.delivery.nudge();
    const id = denied.stream.id.replace('execution-', '');
    await waitFor(async () => (await runtime.commands.load(executionStream(id))).state.status !== 'accepted', 15_000, 'a decision');
    expect((await runtime.commands.load(executionStream(id))).state).toMatchObject({ status: 'denied', denial: { code: 'vault_locked' } });

    expect(await (await post('unlock', '{"reason":"key rotated"}')).json()).toMatchObject({
      status: 'unlocked',
      by: 'ops:alice',
      changed: true,
      version: 2,
    });
    const authorized = await seedAccepted(runtime.commands, runtime.store, { actor: 'agent:deploy-bot', tool: 'get_build_status' });
    runtime.delivery.nudge();
    const next = authorized.stream.id.replace('execution-', '');
    await waitFor(async () => (await runtime.commands.load(executionStream(next))).state.status === 'authorized', 15_000, 'authorized');
  });
});
