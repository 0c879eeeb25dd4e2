import { randomUUID } from 'node:crypto';
import { PostgresEventStore } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase, holdSubscriptionLead, testEvent } from '@onceport/event-store/testing';
import type { PoolClient } from 'pg';
import { waitFor } from '../testing';
import type { EventConsumer } from './event-delivery.port';
import { InProcessDelivery } from './in-process-delivery';

const DURABLE = 'handoff-test';

/**
 * The embedded delivery hands what a writer of its process committed to the consumers at once; the
 * tail is the backstop. With the tail's lead held by "another process", an event is still handled;
 * once the tail leads, it skips that event, and it handles one whose handling failed when handed on.
 */
describe('InProcessDelivery: a writer’s commits handed to the consumers at once (real PostgreSQL)', () => {
  let db: TestDatabase;
  let delivery: InProcessDelivery;
  let consumer: EventConsumer;
  let store: PostgresEventStore;
  let leadHolder: PoolClient | null;
  const handled: string[] = [];
  /** Event ids whose first handling fails. */
  const failOnce = new Set<string>();

  beforeAll(async () => {
    db = await createTestDatabase();
    leadHolder = await holdSubscriptionLead(db.pool, `consumer:${DURABLE}`); // taken before the consumer's tail starts: it stands by
    delivery = new InProcessDelivery(db.pool, () => undefined);
    consumer = delivery.consumer({ durable: DURABLE, eventTypes: ['TestHappened'], inbox: 'by_stream' }, async (event) => {
      if (failOnce.delete(event.metadata.eventId)) throw new Error('failing once on purpose');
      handled.push(event.metadata.eventId);
    });
    await consumer.start();
    store = new PostgresEventStore(db.pool, undefined, (events) => delivery.committed(events));
  });
  afterAll(async () => {
    await consumer?.stop();
    leadHolder?.release(true);
    await db?.drop();
  });

  const tailPassed = async (): Promise<boolean> => {
    const [saved, last] = await Promise.all([
      db.pool.query<{ position: string }>(
        `SELECT global_position::text AS position FROM onceport.subscription_checkpoints WHERE subscription_id = 'consumer:${DURABLE}'`,
      ),
      db.pool.query<{ position: string }>('SELECT max(global_position)::text AS position FROM onceport.events'),
    ]);
    return BigInt(saved.rows[0]?.position ?? '0') >= BigInt(last.rows[0]?.position ?? '0');
  };

  it('handles an event committed here while its tail cannot read, and only events of its types', async () => {
    const other = testEvent('OtherHappened');
    const event = testEvent('TestHappened');
    await store.append(`handoff-${randomUUID()}`, [other], { expectedVersion: 0 });
    await store.append(`handoff-${randomUUID()}`, [event], { expectedVersion: 0 });
    await waitFor(() => handled.length > 0, 10_000, 'the event handled');
    expect(handled).toEqual([event.eventId]);
    const read = await db.pool.query(`SELECT 1 FROM onceport.subscription_checkpoints WHERE subscription_id = 'consumer:${DURABLE}'`);
    expect(read.rowCount).toBe(0); // the tail never read: it does not lead
  });

  it('the tail, leading again, skips what was handled, and handles what failed when handed on', async () => {
    const failing = testEvent('TestHappened');
    failOnce.add(failing.eventId);
    await store.append(`handoff-${randomUUID()}`, [failing], { expectedVersion: 0 });
    leadHolder?.release(true); // the session ends, and the lock with it
    leadHolder = null;

    await waitFor(() => handled.includes(failing.eventId), 20_000, 'the failed event handled by the tail');
    await waitFor(tailPassed, 20_000, 'the tail read past every event');
    expect(failOnce.size).toBe(0);
    expect(handled).toHaveLength(2); // the first event once, not again from the tail
  });
});

describe('InProcessDelivery: handing on stays within the consumer’s concurrency (real PostgreSQL)', () => {
  const durable = 'handoff-gated';
  let db: TestDatabase;
  let leadHolder: PoolClient | null;
  let consumer: EventConsumer;
  let store: PostgresEventStore;
  let running = 0;
  let mostAtOnce = 0;
  const handled: string[] = [];
  let openGate: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (openGate = resolve));

  beforeAll(async () => {
    db = await createTestDatabase();
    leadHolder = await holdSubscriptionLead(db.pool, `consumer:${durable}`);
    const delivery = new InProcessDelivery(db.pool, () => undefined);
    consumer = delivery.consumer({ durable, eventTypes: ['TestHappened'], inbox: 'by_stream', concurrency: 1 }, async (event) => {
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      await gate;
      handled.push(event.metadata.eventId);
      running -= 1;
    });
    await consumer.start();
    store = new PostgresEventStore(db.pool, undefined, (events) => delivery.committed(events));
  });
  afterAll(async () => {
    openGate();
    await consumer?.stop();
    leadHolder?.release(true);
    await db?.drop();
  });

  it('hands on only while a slot is free; the tail handles the rest, one at a time', async () => {
    const first = testEvent('TestHappened');
    const second = testEvent('TestHappened');
    await store.append(`handoff-${randomUUID()}`, [first], { expectedVersion: 0 });
    await store.append(`handoff-${randomUUID()}`, [second], { expectedVersion: 0 });
    expect(running).toBe(1); // the first handed on and running; the second not handed on: no slot
    openGate();
    await waitFor(() => handled.includes(first.eventId), 10_000, 'the first event handled');
    leadHolder?.release(true);
    leadHolder = null;
    await waitFor(() => handled.includes(second.eventId), 20_000, 'the second event handled by the tail');
    expect(handled).toEqual([first.eventId, second.eventId]);
    expect(mostAtOnce).toBe(1);
  });
});
