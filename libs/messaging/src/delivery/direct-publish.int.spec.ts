import { randomUUID } from 'node:crypto';
import { executionStreamId } from '@onceport/contracts';
import { PostgresEventStore } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase, holdSubscriptionLead, testEvent } from '@onceport/event-store/testing';
import type { PoolClient } from 'pg';
import { EXECUTION_STREAM_NAME } from '../jetstream/execution-stream';
import { messagingMigrations } from '../migrations';
import { type NatsKit, TestNatsServer, connectKit, waitFor } from '../testing';
import type { EventConsumer } from './event-delivery.port';
import { JetStreamDelivery } from './jetstream-delivery';

/**
 * A writer publishes what it committed itself, at once; the relay is the backstop. With the relay's
 * lead held by "another process", the consumer still gets every execution event; once the relay
 * leads, it publishes them again and JetStream keeps each once.
 */
describe('JetStreamDelivery: the writer publishes its own commits (real PostgreSQL, real JetStream)', () => {
  let nats: TestNatsServer;
  let db: TestDatabase;
  let kit: NatsKit;
  let delivery: JetStreamDelivery;
  let consumer: EventConsumer;
  let leadHolder: PoolClient | null;
  const handled: string[] = [];
  /** Stream ids heard, by a hearing asked for before the delivery connected. */
  const heardEarly: string[] = [];

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    db = await createTestDatabase(messagingMigrations);
    kit = await connectKit(nats.url);
    leadHolder = await holdSubscriptionLead(db.pool, 'outbox-relay'); // taken before the delivery's relay starts: it stands by
    delivery = new JetStreamDelivery(db.pool, { natsUrl: nats.url, connectionName: 'direct-publish-test', onError: () => undefined });
    delivery.hear(['TestHappened'], (streamId) => heardEarly.push(streamId));
    await delivery.start();
    consumer = delivery.consumer({ durable: 'direct-test', eventTypes: ['TestHappened'], inbox: 'by_stream' }, async (event) => {
      handled.push(event.metadata.eventId);
    });
    await consumer.start();
  });
  afterAll(async () => {
    await consumer?.stop();
    leadHolder?.release(true);
    await delivery?.stop();
    await kit?.close();
    await db?.drop();
    await nats?.stop();
  });

  it('delivers an execution event committed here without the relay, and only execution events', async () => {
    const store = new PostgresEventStore(db.pool, undefined, (events) => delivery.committed(events));
    const execution = executionStreamId(randomUUID());
    const events = [testEvent('TestHappened', { n: 1 }), testEvent('TestHappened', { n: 2 })];
    await store.append(execution, events, { expectedVersion: 0 });
    await store.append(`intent-${randomUUID()}`, [testEvent('TestHappened', { n: 3 })], { expectedVersion: 0 }); // not an execution's

    await waitFor(() => handled.length >= 2, 10_000, 'both execution events handled');
    expect(handled).toEqual(events.map((event) => event.eventId));
    expect((await kit.jsm.streams.info(EXECUTION_STREAM_NAME)).state.messages).toBe(2);
    const relayed = await db.pool.query(`SELECT 1 FROM onceport.subscription_checkpoints WHERE subscription_id = 'outbox-relay'`);
    expect(relayed.rowCount).toBe(0); // the relay never read: it does not lead
  });

  it('the relay, leading again, publishes the same events under the same ids: JetStream keeps each once', async () => {
    const last = await db.pool.query<{ position: string }>('SELECT max(global_position)::text AS position FROM onceport.events');
    leadHolder?.release(true); // the session ends, and the lock with it
    leadHolder = null;

    await waitFor(
      async () => {
        const saved = await db.pool.query<{ position: string }>(
          `SELECT global_position::text AS position FROM onceport.subscription_checkpoints WHERE subscription_id = 'outbox-relay'`,
        );
        return BigInt(saved.rows[0]?.position ?? '0') >= BigInt(last.rows[0]?.position ?? '0');
      },
      20_000,
      'the relay read past every event',
    );
    const stream = await kit.jsm.streams.info(EXECUTION_STREAM_NAME);
    expect(stream.state.messages).toBe(2);
    expect(handled).toHaveLength(2);
  });

  it('hears the stream of each committed event of the types asked for, from the writer’s send, until told to stop', async () => {
    const store = new PostgresEventStore(db.pool, undefined, (events) => delivery.committed(events));
    const heard: string[] = [];
    const stopHearing = delivery.hear(['TestHappened'], (streamId) => heard.push(streamId));
    const other = executionStreamId(randomUUID());
    const first = executionStreamId(randomUUID());
    // Sent in this order on one connection: had the other type been heard, it would have come first.
    await store.append(other, [testEvent('OtherHappened')], { expectedVersion: 0 });
    await store.append(first, [testEvent('TestHappened')], { expectedVersion: 0 });
    await waitFor(() => heard.length > 0 && heardEarly.includes(first), 10_000, 'the event heard by both hearings');
    expect(new Set(heard)).toEqual(new Set([first])); // the relay, leading since the test before, may repeat it

    stopHearing();
    const second = executionStreamId(randomUUID());
    await store.append(second, [testEvent('TestHappened')], { expectedVersion: 0 });
    await waitFor(() => heardEarly.includes(second), 10_000, 'the later event heard by the hearing still on');
    expect(new Set(heard)).toEqual(new Set([first]));
  });

  it('events no service acts on stay off JetStream, from the writer and the relay alike; a consumer or listener of one is refused', async () => {
    leadHolder?.release(true); // the relay leads (as since the second test), so it reads these events too
    leadHolder = null;
    const store = new PostgresEventStore(db.pool, undefined, (events) => delivery.committed(events));
    const before = (await kit.jsm.streams.info(EXECUTION_STREAM_NAME)).state.messages;
    const execution = executionStreamId(randomUUID());
    const acted = testEvent('TestHappened', { n: 4 });
    const off = ['DispatchStarted', 'RetryAttached', 'ResultDelivered'].map((type) => testEvent(type));
    const last = (await store.append(execution, [...off, acted], { expectedVersion: 0 })).globalPositions.at(-1) ?? 0n;
    await waitFor(() => handled.includes(acted.eventId), 10_000, 'the event acted on handled');
    // Once the relay read past them, it had every chance to publish the others.
    await waitFor(
      async () => {
        const saved = await db.pool.query<{ position: string }>(
          `SELECT global_position::text AS position FROM onceport.subscription_checkpoints WHERE subscription_id = 'outbox-relay'`,
        );
        return BigInt(saved.rows[0]?.position ?? '0') >= last;
      },
      20_000,
      'the relay read past the events',
    );
    expect((await kit.jsm.streams.info(EXECUTION_STREAM_NAME)).state.messages).toBe(before + 1);

    expect(() => delivery.hear(['OutcomeObserved', 'ResultDelivered'], () => undefined)).toThrow(/ResultDelivered/);
    expect(() =>
      delivery.consumer({ durable: 'off-test', eventTypes: ['DispatchStarted'], inbox: 'by_stream' }, async () => undefined),
    ).toThrow(/the consumer off-test asks for DispatchStarted/);
  });
});
