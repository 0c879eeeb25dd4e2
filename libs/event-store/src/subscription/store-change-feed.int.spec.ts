import { setTimeout as sleep } from 'node:timers/promises';
import type { StoredEvent } from '../event';
import { PostgresEventStore } from '../postgres-event-store';
import { type TestDatabase, createTestDatabase, testEvent } from '../testing';
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
});
