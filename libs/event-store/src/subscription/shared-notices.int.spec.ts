import { PostgresEventStore } from '../postgres-event-store';
import { type TestDatabase, createTestDatabase, testEvent, waitFor } from '../testing';
import { StoreChangeFeed } from './store-change-feed';
import { StoreSubscription } from './store-subscription';

describe('SharedNotices (real PostgreSQL)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  /** `db.pool`, counting the connections that LISTEN: how many ran it, and how many of those are still held. */
  const countingListeners = () => {
    const count = { listened: 0, held: 0 };
    const pool = {
      connect: async () => {
        const client = await db.pool.connect();
        const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
        const release = client.release.bind(client);
        let listening = false;
        Object.assign(client, {
          query: (...args: unknown[]) => {
            if (String(args[0]).startsWith('LISTEN ') && !listening) {
              listening = true;
              count.listened++;
              count.held++;
            }
            return query(...args);
          },
          release: (error?: Error | boolean) => {
            if (listening) count.held--;
            return release(error);
          },
        });
        return client;
      },
      query: db.pool.query.bind(db.pool),
    };
    return { pool: pool as unknown as typeof db.pool, count };
  };

  it('wakes every tailing reader of a pool from one LISTEN connection, and closes it once the last one stops', async () => {
    const { pool, count } = countingListeners();
    const seen = new Map<string, string[]>();
    const note = (reader: string, types: readonly string[]): void => {
      seen.set(reader, [...(seen.get(reader) ?? []), ...types]);
    };
    // Polls an hour apart: only a notice can bring them the event in time.
    const subscriptions = ['first', 'second'].map(
      (id) =>
        new StoreSubscription(
          pool,
          { subscriptionId: id, mode: 'at_least_once', exclusive: true, pollIntervalMs: 3_600_000 },
          async (events) =>
            note(
              id,
              events.map((e) => e.type),
            ),
        ),
    );
    const feed = new StoreChangeFeed(pool, { pollIntervalMs: 3_600_000 });
    feed.onEvents((events) =>
      note(
        'feed',
        events.map((e) => e.type),
      ),
    );
    await feed.start();
    for (const subscription of subscriptions) subscription.start();
    await waitFor(() => subscriptions.every((s) => s.leading));

    await new PostgresEventStore(db.pool).append('noticed', [testEvent('Noticed')], { expectedVersion: 0 });
    await waitFor(() => ['first', 'second', 'feed'].every((reader) => seen.get(reader)?.includes('Noticed')));
    expect(count).toEqual({ listened: 1, held: 1 });

    await Promise.all([...subscriptions.map((s) => s.stop()), feed.stop()]);
    expect(count).toEqual({ listened: 1, held: 0 });
  });

  it('keeps the lead and reads on while the shared LISTEN fails, looking again after its retry delay', async () => {
    const errors: string[] = [];
    const refusing = {
      connect: async () => {
        const client = await db.pool.connect();
        const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
        Object.assign(client, {
          query: (...args: unknown[]) =>
            String(args[0]).startsWith('LISTEN ') ? Promise.reject(new Error('LISTEN refused')) : query(...args),
        });
        return client;
      },
      query: db.pool.query.bind(db.pool),
    } as unknown as typeof db.pool;
    const seen: string[] = [];
    const subscription = new StoreSubscription(
      refusing,
      {
        subscriptionId: 'unheard',
        mode: 'at_least_once',
        exclusive: true,
        pollIntervalMs: 3_600_000,
        retryDelayMs: 50,
        onError: (error) => errors.push(String(error)),
      },
      async (events) => {
        seen.push(...events.map((e) => e.type));
      },
    );
    subscription.start();
    try {
      await waitFor(() => subscription.leading && errors.length > 0);
      await new PostgresEventStore(db.pool).append('unheard', [testEvent('Unheard')], { expectedVersion: 0 });
      await waitFor(() => seen.includes('Unheard'));
      expect(subscription.leading).toBe(true);
      expect(errors[0]).toMatch(/LISTEN refused/);
    } finally {
      await subscription.stop();
    }
  });
});
