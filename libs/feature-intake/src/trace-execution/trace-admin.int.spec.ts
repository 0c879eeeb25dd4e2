import { randomUUID } from 'node:crypto';
import { type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ActorDirectory, hashApiKey, parseActorsFile } from '@onceport/config';
import { executionStreamId } from '@onceport/contracts';
import { recordedHistories } from '@onceport/contracts/testing';
import { type JsonObject, PostgresEventStore } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { PG_POOL } from '@onceport/service-kit';
import { ACTOR_DIRECTORY } from '../auth/actor-directory.token';
import type { TraceView } from '@onceport/execution-trace';
import { MAX_TIMELINE_EVENTS, TraceAdminController } from './trace-admin.controller';

const ADMIN_KEY = 'adm-trace-ops';
const AGENT_KEY = 'key-trace-agent';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/** A trace, or a problem (its `code` and `detail`). */
type TraceBody = TraceView & { code?: string; detail?: string };

type Recorded = { type: string; schemaVersion: number; data: JsonObject; metadata: JsonObject };

/** The admin trace route as intake serves it (Nest, HTTP) over a real event store seeded with recorded executions. */
describe('GET /v1/admin/executions/{id}/trace (real PostgreSQL, HTTP)', () => {
  let db: TestDatabase;
  let app: INestApplication;
  let base: string;

  /** Appends a history as the services would have, each event carrying the request's traceparent; returns its execution id. */
  const seed = async (history: readonly Recorded[]): Promise<string> => {
    const executionId = String(history[0]!.data['executionId']);
    await new PostgresEventStore(db.pool).append(
      executionStreamId(executionId),
      history.map((e) => ({
        eventId: String(e.metadata['eventId']),
        type: e.type,
        schemaVersion: e.schemaVersion,
        data: e.data,
        metadata: { ...e.metadata, traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` },
      })),
      { expectedVersion: 'any' },
    );
    return executionId;
  };
  const recorded = (name: string) => recordedHistories[name] as readonly Recorded[];

  beforeAll(async () => {
    db = await createTestDatabase();
    const directory = new ActorDirectory(
      parseActorsFile(
        `
actors:
  - id: agent:trace
    api_keys_sha256: [${hashApiKey(AGENT_KEY)}]
    tools: "*"
admins:
  - id: ops:trace
    api_keys_sha256: [${hashApiKey(ADMIN_KEY)}]
`,
        'actors.yaml',
      ),
    );
    @Module({
      controllers: [TraceAdminController],
      providers: [
        { provide: ACTOR_DIRECTORY, useValue: directory },
        { provide: PG_POOL, useValue: db.pool },
      ],
    })
    class TestService {}
    app = await NestFactory.create(TestService, { logger: false, bodyParser: false });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/v1/admin/executions`;
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  const trace = async (id: string, key: string | null = ADMIN_KEY) => {
    const response = await fetch(`${base}/${id}/trace`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    return { status: response.status, type: response.headers.get('content-type'), body: (await response.json()) as TraceBody };
  };

  it('answers the five questions of an unknown outcome settled by probes, with the timeline and its trace id', async () => {
    const id = await seed(recorded('unknown-outcome-settled'));
    const { status, body } = await trace(id);
    expect(status).toBe(200);
    expect(body).toMatchObject({ execution_id: id, state: 'completed', timeline_capped: false, trace_ids: [TRACE_ID] });
    expect(body.timeline.map((e) => e.type)).toEqual(recorded('unknown-outcome-settled').map((e) => e.type));
    expect(body.timeline[0]).toMatchObject({ stream_version: 1, type: 'ExecutionAccepted', trace_id: TRACE_ID });
    expect(body.timeline[0]!.summary).toMatch(/^\S+ for /);
    expect(body.answers).toMatchObject({
      agent_processes: { answer: 'one', processes: ['proc:infra-bot-4411'] },
      first_call_authorized_and_dispatched: { authorized: true, dispatched: true },
      target_answered: {
        answer: 'settled',
        sentence: expect.stringMatching(/^No answer reached Onceport: .*2 probes .*settled as completed/),
      },
      delivery_failed_after_completion: { answer: 'yes' },
      later_calls: { attached: 1, redispatch_attempts: 0, new_executions: [] },
    });
  });

  it('withholds the raw arguments of the acceptance, as the CLI does: the canonical record stands for them', async () => {
    const history = recorded('unknown-outcome-settled');
    const { body } = await trace(String(history[0]!.data['executionId']));
    const accepted = body.timeline[0]!.data!;
    expect(accepted['arguments']).toBeUndefined();
    expect(accepted['arguments_withheld']).toEqual(Object.keys(history[0]!.data['arguments'] as object).sort());
    // The canonical record stands for them (sensitive values as HMACs); the model-written comment is in neither.
    expect(JSON.stringify(body)).not.toContain('Move api to the new load balancer');
  });

  it(`caps the timeline at ${MAX_TIMELINE_EVENTS} events and says so`, async () => {
    const [accepted, ...rest] = recorded('completed-undelivered-retry').map((e) => ({
      ...e,
      data: { ...e.data, executionId: 'exe_01KJM6K9ZZ0000000000000CAP' },
    }));
    const retry = rest.find((e) => e.type === 'RetryAttached')!;
    const retries = Array.from({ length: MAX_TIMELINE_EVENTS + 20 }, () => ({
      ...retry,
      metadata: { ...retry.metadata, eventId: randomUUID() },
    }));
    const id = await seed([{ ...accepted!, metadata: { ...accepted!.metadata, eventId: randomUUID() } }, ...retries]);
    const { status, body } = await trace(id);
    expect(status).toBe(200);
    expect(body).toMatchObject({ event_count: MAX_TIMELINE_EVENTS + 21, timeline_capped: true });
    expect(body.timeline).toHaveLength(MAX_TIMELINE_EVENTS);
    expect(body.answers.later_calls.sentence).toMatch(/ later calls attached to this execution \(.*; and \d+ more\)/);
  });

  it('refuses without an admin key (an agent key is not one), 400 for a malformed id, 404 for an unknown execution', async () => {
    const unknown = 'exe_01KJM6JZYTXRSY6FCRYVKVRJ00';
    expect(await trace(unknown, null)).toMatchObject({ status: 401, type: expect.stringContaining('application/problem+json') });
    expect(await trace(unknown, AGENT_KEY)).toMatchObject({ status: 401 });
    expect(await trace('not-an-id')).toMatchObject({
      status: 400,
      type: expect.stringContaining('application/problem+json'),
      body: { code: 'invalid_execution_id', detail: expect.stringContaining('"not-an-id" is not an execution id') },
    });
    expect(await trace(unknown)).toMatchObject({ status: 404, body: { code: 'execution_not_found' } });
  });
});
