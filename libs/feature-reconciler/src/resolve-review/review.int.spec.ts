import { createHash, randomBytes } from 'node:crypto';
import { type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ActorDirectory, parseActorsFile } from '@onceport/config';
import { type ExecutionCommand, newExecutionId } from '@onceport/domain';
import { acceptCommand } from '@onceport/domain/testing';
import { EntityManager, type MikroORM } from '@mikro-orm/postgresql';
import { ProjectionRunner, executionStream, openOrm } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { executionMatchesProjection, readModelEntities } from '@onceport/read-models';
import { type ServicePorts, openServicePorts, ServiceKitModule } from '@onceport/service-kit';
import { ADMINS } from '../reconciler.tokens';
import { ReviewController } from './review.controller';

const ADMIN_KEY = `adm_${randomBytes(16).toString('hex')}`;
const AGENT_KEY = `op_${randomBytes(16).toString('hex')}`;
const sha = (key: string): string => createHash('sha256').update(key).digest('hex');
const ACTORS = `actors:\n  - id: agent:billing-bot\n    api_keys_sha256: [${sha(AGENT_KEY)}]\n    tools: "*"\nadmins:\n  - id: ops:bo\n    api_keys_sha256: [${sha(ADMIN_KEY)}]\n`;

/** The review API as the reconciler serves it: real PostgreSQL, its read model, HTTP. */
describe('review API (real PostgreSQL, HTTP)', () => {
  let db: TestDatabase;
  let runtime: ServicePorts;
  let app: INestApplication;
  let projection: ProjectionRunner;
  let orm: MikroORM;
  let base: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    runtime = await openServicePorts({
      serviceName: 'review-test',
      databaseUrl: db.url,
      natsUrl: 'nats://127.0.0.1:1',
      delivery: 'in_process',
      log: () => undefined,
    });
    projection = new ProjectionRunner(runtime.pool, executionMatchesProjection);
    orm = await openOrm({ databaseUrl: db.url, entities: readModelEntities });
    @Module({
      imports: [ServiceKitModule.forPorts(runtime)],
      controllers: [ReviewController],
      providers: [
        { provide: ADMINS, useValue: new ActorDirectory(parseActorsFile(ACTORS, 'actors.yaml')) },
        { provide: EntityManager, useValue: orm.em },
      ],
    })
    class TestService {}
    app = await NestFactory.create(TestService, { logger: false, bodyParser: false });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/v1/admin`;
  });
  afterAll(async () => {
    await projection?.stop();
    await app?.close();
    await orm?.close();
    await runtime?.close();
    await db?.drop();
  });

  const call = async (method: string, path: string, key: string | null, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      body: (await response.json()) as Record<string, unknown>,
    };
  };

  /** An execution whose probes could not tell: dispatched, unknown, probed once, settled needs_review. */
  async function inReview(): Promise<string> {
    const id = newExecutionId(Date.now(), randomBytes(10));
    const steps: ((now: Date) => ExecutionCommand)[] = [
      (now) => ({ ...acceptCommand({ executionId: id, effectClass: 'irreversible' }), metadata: { now } }),
      (now) => ({ type: 'AuthorizeExecution', data: { basis: 'policy', policyVersion: 'v' }, metadata: { now } }),
      (now) => ({ type: 'StartDispatch', data: { dispatcherId: 'd', leaseMs: 30_000 }, metadata: { now } }),
      (now) => ({ type: 'MarkOutcomeUnknown', data: { attempt: 1, reason: 'socket reset after the body was sent' }, metadata: { now } }),
      (now) => ({
        type: 'RecordProbe',
        data: { attempt: 1, probeNumber: 1, verdict: 'cant_tell', detail: 'GET /v1/invoices/… answered 503' },
        metadata: { now },
      }),
      (now) => ({
        type: 'SettleOutcome',
        data: {
          attempt: 1,
          settlement: 'needs_review',
          reason: 'Probes could not tell; an irreversible effect is never re-sent blindly.',
          targetStatus: null,
          result: null,
        },
        metadata: { now },
      }),
    ];
    for (const step of steps) await runtime.commands.handle(executionStream(id), (_l, now) => step(now), { causationId: 'test' });
    return id;
  }

  it('lists what awaits review with its record, reason and last probe; a resolved one leaves the list', async () => {
    await projection.catchUp(); // the read model is at its checkpoint before these two
    const [first, second] = [await inReview(), await inReview()];
    expect(await call('GET', '/reviews', null)).toMatchObject({
      status: 401,
      type: 'application/problem+json',
      body: { code: 'unauthorized' },
    });
    expect(await call('GET', '/reviews', AGENT_KEY)).toMatchObject({ status: 401 });

    const listed = await call('GET', '/reviews', ADMIN_KEY);
    expect(listed.status).toBe(200);
    const reviews = listed.body['reviews'] as Record<string, unknown>[];
    expect(reviews.map((r) => r['execution_id'])).toEqual([first, second]);
    expect(reviews[0]).toEqual({
      execution_id: first,
      actor: 'agent:billing-bot',
      tool: 'create_invoice',
      record: expect.objectContaining({ tool: 'create_invoice', method: 'POST /v1/invoices' }),
      state: 'needs_review',
      since: expect.any(String),
      reason: 'Probes could not tell; an irreversible effect is never re-sent blindly.',
      attempts: 1,
      last_probe: { probe_number: 1, verdict: 'cant_tell', detail: 'GET /v1/invoices/… answered 503', probed_at: expect.any(String) },
    });

    const raw = async (body: string) => {
      const response = await fetch(`${base}/executions/${first}/resolve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
        body,
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    expect(await raw('{"resolution":')).toMatchObject({ status: 400, body: { code: 'malformed_json' } });
    expect(await raw('["applied"]')).toMatchObject({ status: 400, body: { code: 'malformed_json' } });
    expect(await raw(JSON.stringify({ resolution: 'applied', reason: 'x'.repeat(20_000) }))).toMatchObject({
      status: 413,
      body: { code: 'body_too_large' },
    });
    expect(await call('POST', `/executions/${first}/resolve`, ADMIN_KEY, { resolution: 'maybe', reason: 'x' })).toMatchObject({
      status: 400,
      body: { code: 'resolution_required', detail: expect.stringContaining('"resolution"') },
    });
    expect(
      await call('POST', `/executions/${first}/resolve`, ADMIN_KEY, { resolution: 'applied', reason: 'invoice INV-9 exists' }),
    ).toMatchObject({ status: 200, body: { execution_id: first, state: 'completed_result_not_delivered', resolved_by: 'ops:bo' } });
    // Read from the store, not only the read model: gone at once, before the projection catches up.
    expect(((await call('GET', '/reviews', ADMIN_KEY)).body['reviews'] as Record<string, unknown>[]).map((r) => r['execution_id'])).toEqual(
      [second],
    );
    expect(await call('POST', `/executions/${first}/resolve`, ADMIN_KEY, { resolution: 'not_applied', reason: 'again' })).toMatchObject({
      status: 409,
      body: { code: 'not_in_review' },
    });
    expect(
      await call('POST', '/executions/exe_01JNQ7ZK3M8V2C4D6F8G0H2J4K/resolve', ADMIN_KEY, { resolution: 'applied', reason: 'x' }),
    ).toMatchObject({ status: 404, body: { code: 'execution_not_found' } });
  });
});
