import { setTimeout as sleep } from 'node:timers/promises';
import type { StoredEvent } from '../event';
import { PostgresEventStore } from '../postgres-event-store';
import { type TestDatabase, createTestDatabase, testEvent } from '../testing';
import { headCheckpoint } from './head-checkpoint';
import { StoreChangeFeed } from './store-change-feed';

describe('StoreChangeFeed (real PostgreSQL)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it('reports only what is appended after it started, each event once', async () => {
    const store = new PostgresEventStore(db.pool);
    await store.append('before', [testEvent('Old')], { expectedVersion: 0 });
    // The head is what every reader can see: while another transaction of the (shared) cluster that
    // began before 'Old' committed is still open, 'Old' is not in it yet and would be reported later.
    const old = (await store.readStream('before'))[0]!;
    while ((await headCheckpoint(db.pool)).globalPosition < old.globalPosition) await sleep(10);
    const feed = new StoreChangeFeed(db.pool, { pollIntervalMs: 5000 });
    const seen: StoredEvent[] = [];
    feed.onEvents((events) => seen.push(...events));
    await feed.start();
    await store.append('after', [testEvent('New1'), testEvent('New2')], { expectedVersion: 0 });
    const deadline = Date.now() + 5000;
    // Woken by NOTIFY: far sooner than the 5 s poll.
    while (seen.length < 2 && Date.now() < deadline) await sleep(10);
    await feed.stop();
    expect(seen.map((e) => e.type)).toEqual(['New1', 'New2']);
  });

  it('reports an event held back by an older open transaction once that one ends, though no NOTIFY follows', async () => {
    const store = new PostgresEventStore(db.pool);
    const feed = new StoreChangeFeed(db.pool, { pollIntervalMs: 3_600_000 });
    const seen: string[] = [];
    feed.onEvents((events) => seen.push(...events.map((e) => e.type)));
    await feed.start();
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_current_xact_id()');
      await store.append('held-feed', [testEvent('HeldBack')], { expectedVersion: 0 });
      await sleep(200);
      expect(seen).toEqual([]);
      await holder.query('COMMIT');
    } finally {
      holder.release();
    }
    const deadline = Date.now() + 20_000;
    while (seen.length < 1 && Date.now() < deadline) await sleep(10);
    await feed.stop();
    expect(seen).toEqual(['HeldBack']);
  });
});
