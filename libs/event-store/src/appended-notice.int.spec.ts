import type { Notification, PoolClient } from 'pg';
import { EVENTS_CHANNEL } from './appended-notice';
import { PostgresEventStore } from './postgres-event-store';
import { inTransaction } from './queryable';
import { type TestDatabase, createTestDatabase, testEvent } from './testing';

describe('readers are woken after the commit, by the writer (real PostgreSQL)', () => {
  let db: TestDatabase;
  let listener: PoolClient;
  let notices: Notification[];

  beforeAll(async () => {
    db = await createTestDatabase();
    listener = await db.pool.connect();
    listener.on('notification', (n) => notices.push(n));
    await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
  });
  beforeEach(() => {
    notices = [];
  });
  afterAll(async () => {
    listener.release(true);
    await db.drop();
  });

  it('the events table carries no NOTIFY trigger: a notifying commit would hold a cluster-wide lock through its WAL flush', async () => {
    const triggers = await db.pool.query<{ tgname: string }>(
      "SELECT tgname FROM pg_trigger WHERE tgrelid = 'onceport.events'::regclass AND NOT tgisinternal ORDER BY tgname",
    );
    expect(triggers.rows.map((r) => r.tgname)).toEqual(['events_append_only', 'events_chain', 'events_no_truncate']);
  });

  it('an append on its own notifies once it committed', async () => {
    const store = new PostgresEventStore(db.pool);
    await store.append('woken-1', [testEvent()], { expectedVersion: 0 });
    await until(() => notices.length >= 1);
    expect(notices[0]?.channel).toBe(EVENTS_CHANNEL);
  });

  it('appends inside inTransaction notify after its commit, and a rolled-back one never', async () => {
    const store = new PostgresEventStore(db.pool);
    await inTransaction(db.pool, async (tx) => {
      await store.append('woken-2', [testEvent()], { expectedVersion: 0, tx });
      await store.append('woken-3', [testEvent()], { expectedVersion: 'any', tx });
    });
    await until(() => notices.length >= 1);
    await expect(
      inTransaction(db.pool, async (tx) => {
        await store.append('woken-4', [testEvent()], { expectedVersion: 0, tx });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    // A marker for the next step: once its notice arrives, any notice of the rollback would have too.
    await store.append('woken-5', [testEvent()], { expectedVersion: 0 });
    await until(() => notices.length >= 2);
    expect(notices).toHaveLength(2);
  });

  it('the store tells its listener of appends inside inTransaction once the transaction commits, of a rolled-back one never', async () => {
    const told: string[] = [];
    const store = new PostgresEventStore(db.pool, undefined, (events) =>
      told.push(...events.map((event) => `${event.streamId}@${event.streamVersion}`)),
    );
    await expect(
      inTransaction(db.pool, async (tx) => {
        await store.append('told-0', [testEvent()], { expectedVersion: 0, tx });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await inTransaction(db.pool, async (tx) => {
      await store.append('told-1', [testEvent(), testEvent()], { expectedVersion: 0, tx });
      await store.append('told-2', [testEvent()], { expectedVersion: 'any', tx });
      expect(told).toEqual([]); // not before the commit
    });

    expect(told).toEqual(['told-1@1', 'told-1@2', 'told-2@1']);
  });
});

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
