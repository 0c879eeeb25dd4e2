import { PostgresEventStore, type Queryable, quarantineEntry, requestRetry, sharedNoticesOf } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase, testEvent } from '@onceport/event-store/testing';
import type { EventHandler } from '../consumer/event-handler';
import { StoreTailEventConsumer } from './store-tail-event-consumer';

/** The embedded delivery's consumer, with a handler whose effect the real database refuses for one event. */
describe('StoreTailEventConsumer quarantine (real PostgreSQL)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  let consumer: StoreTailEventConsumer | null = null;

  beforeEach(async () => {
    db = await createTestDatabase();
    store = new PostgresEventStore(db.pool);
    await db.pool.query('CREATE TABLE effects (event_id uuid PRIMARY KEY, n integer NOT NULL CONSTRAINT n_not_negative CHECK (n >= 0))');
  });
  afterEach(async () => {
    await consumer?.stop();
    consumer = null;
    await db.drop();
  });

  const until = async (condition: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const append = async (n: number): Promise<string> => {
    const event = testEvent('TestHappened', { n });
    await store.append(`tail-${event.eventId}`, [event], { expectedVersion: 'no_stream' });
    sharedNoticesOf(db.pool).nudge(); // as an in-process writer does
    return event.eventId;
  };
  const handled = async (): Promise<number[]> =>
    (await db.pool.query<{ n: number }>('SELECT n FROM effects ORDER BY n')).rows.map((r) => r.n);
  const entry = (eventId: string) => quarantineEntry(db.pool, 'consumer:tail-test', eventId);
  const handler: EventHandler = async (event, context) => {
    await (context.tx as Queryable).query('INSERT INTO effects (event_id, n) VALUES ($1, $2)', [event.metadata.eventId, event.data['n']]);
  };

  it('quarantines the event its handler always fails on, handles the others, and takes an operator retry', async () => {
    // The default number of attempts (5), with the consumer's own backoff between them (about 4 s in all).
    consumer = new StoreTailEventConsumer(
      db.pool,
      { durable: 'tail-test', eventTypes: ['TestHappened'], inbox: 'transactional' },
      handler,
      () => undefined,
    );
    await consumer.start();
    await append(1);
    const poison = await append(-1);
    await append(2);

    await until(async () => (await entry(poison))?.status === 'quarantined', 'the poison event quarantined');
    expect(await entry(poison)).toMatchObject({ attempts: 5, last_error: expect.stringMatching(/n_not_negative/) });
    await until(async () => (await handled()).length === 2, 'the others handled');
    await append(3);
    await until(async () => (await handled()).includes(3), 'a later event handled');

    await db.pool.query('ALTER TABLE effects DROP CONSTRAINT n_not_negative');
    await requestRetry(db.pool, 'consumer:tail-test', poison, 'ops:alice');
    await until(async () => (await entry(poison))?.status === 'resolved', 'the retry applied');
    expect(await handled()).toEqual([-1, 1, 2, 3]);
  });
});
