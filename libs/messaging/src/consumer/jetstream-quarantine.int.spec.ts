import { PostgresEventStore, type Queryable, quarantineEntry, requestRetry } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase, testEvent } from '@onceport/event-store/testing';
import { EXECUTION_STREAM_NAME } from '../jetstream/execution-stream';
import { messagingMigrations } from '../migrations';
import { type NatsKit, TestNatsServer, connectKit, waitFor } from '../testing';
import { toWireEvent } from '../wire-event';
import type { EventHandler } from './event-handler';
import { JetStreamEventConsumer } from './jetstream-event-consumer';

/**
 * A handler that always fails on one event: its effect violates a CHECK constraint of the real
 * database. Before the quarantine JetStream redelivered it forever; now it is quarantined and
 * terminated after a bounded number of deliveries, and an operator's retry goes through the owner.
 */
describe('JetStreamEventConsumer quarantine (real PostgreSQL, real JetStream)', () => {
  let nats: TestNatsServer;
  let db: TestDatabase;
  let kit: NatsKit;
  let store: PostgresEventStore;
  let consumer: JetStreamEventConsumer | null = null;

  beforeEach(async () => {
    nats = await TestNatsServer.start();
    db = await createTestDatabase(messagingMigrations);
    kit = await connectKit(nats.url);
    store = new PostgresEventStore(db.pool);
    await db.pool.query('CREATE TABLE effects (event_id uuid PRIMARY KEY, n integer NOT NULL CONSTRAINT n_not_negative CHECK (n >= 0))');
  });
  afterEach(async () => {
    await consumer?.stop();
    consumer = null;
    await kit.close();
    await db.drop();
    await nats.stop();
  });

  const deliveries = new Map<string, number>();
  const handler: EventHandler = async (event, context) => {
    deliveries.set(event.metadata.eventId, (deliveries.get(event.metadata.eventId) ?? 0) + 1);
    await (context.tx as Queryable).query('INSERT INTO effects (event_id, n) VALUES ($1, $2)', [event.metadata.eventId, event.data['n']]);
  };
  const publish = async (n: number): Promise<string> => {
    const event = testEvent('TestHappened', { n });
    await store.append(`q-${event.eventId}`, [event], { expectedVersion: 'no_stream' });
    const [stored] = await store.readStream(`q-${event.eventId}`);
    await kit.js.publish('onceport.execution.test-happened.v1', JSON.stringify(toWireEvent(stored!)), { msgID: event.eventId });
    return event.eventId;
  };
  const handled = async (): Promise<number> =>
    Number((await db.pool.query<{ n: string }>('SELECT count(*)::text AS n FROM effects')).rows[0]?.n);
  const entry = (eventId: string) => quarantineEntry(db.pool, 'consumer:test-service', eventId);

  it('quarantines and terminates an event its handler always fails on after 3 deliveries; the others are handled; retry goes through the owner', async () => {
    consumer = new JetStreamEventConsumer(
      db.pool,
      kit.nc,
      kit.js,
      kit.jsm,
      {
        stream: EXECUTION_STREAM_NAME,
        durable: 'test-service',
        eventTypes: ['TestHappened'],
        inbox: 'transactional',
        retryDelayMs: 50,
        quarantineAfterAttempts: 3,
        retryCheckMs: 200,
      },
      handler,
    );
    await consumer.start();
    await publish(1);
    const poison = await publish(-1);
    await publish(2);

    await waitFor(async () => (await entry(poison))?.status === 'quarantined', 30_000, 'the poison event quarantined');
    await waitFor(async () => (await handled()) === 2, 30_000, 'the other two handled');
    expect(await entry(poison)).toMatchObject({
      attempts: 3,
      event_type: 'TestHappened',
      last_error: expect.stringMatching(/n_not_negative/),
    });
    // Terminated: JetStream holds nothing pending for it and does not deliver it a fourth time.
    const info = () => kit.jsm.consumers.info(EXECUTION_STREAM_NAME, 'test-service--test-happened');
    await waitFor(async () => (await info()).num_ack_pending === 0, 10_000, 'nothing left pending');
    expect(deliveries.get(poison)).toBe(3);
    await publish(3);
    await waitFor(async () => (await handled()) === 3, 30_000, 'a later event handled');
    expect(deliveries.get(poison)).toBe(3);

    // Still broken: the retry fails and the entry stays quarantined.
    await requestRetry(db.pool, 'consumer:test-service', poison, 'ops:alice');
    await waitFor(async () => (await entry(poison))?.attempts === 4, 30_000, 'the retry tried');
    expect(await entry(poison)).toMatchObject({ status: 'quarantined' });
    // Fixed: the retry applies it, through the inbox, and resolves the entry.
    await db.pool.query('ALTER TABLE effects DROP CONSTRAINT n_not_negative');
    await requestRetry(db.pool, 'consumer:test-service', poison, 'ops:alice');
    await waitFor(async () => (await entry(poison))?.status === 'resolved', 30_000, 'the retry applied');
    expect((await db.pool.query('SELECT n FROM effects WHERE event_id = $1', [poison])).rows).toEqual([{ n: -1 }]);
  });
});
