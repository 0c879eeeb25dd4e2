import { setTimeout as sleep } from 'node:timers/promises';
import type { StoredEvent } from '../event';
import { PostgresEventStore } from '../postgres-event-store';
import { inTransaction } from '../queryable';
import { type TestDatabase, createTestDatabase, testEvent, waitFor } from '../testing';
import { loadCheckpoint } from './checkpoint';
import { StoreSubscription } from './store-subscription';

describe('StoreSubscription (real PostgreSQL)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;

  beforeEach(async () => {
    db = await createTestDatabase();
    store = new PostgresEventStore(db.pool);
  });
  afterEach(() => db.drop());

  it('a naive tail by position skips a late commit; this one does not', async () => {
    const seenByNaive: bigint[] = [];
    let naiveAfter = 0n;
    const naivePoll = async (): Promise<void> => {
      for (const e of await store.readAll({ after: naiveAfter })) {
        seenByNaive.push(e.globalPosition);
        naiveAfter = e.globalPosition;
      }
    };
    const seen: StoredEvent[] = [];
    const subscription = new StoreSubscription(
      db.pool,
      { subscriptionId: 'late', mode: 'at_least_once', pollIntervalMs: 20 },
      async (events) => {
        seen.push(...events);
      },
    );
    subscription.start();

    // The long transaction takes a lower position, then commits after a short one took a higher one.
    // Promises, not sleeps, order the steps, so a slow machine can't reorder them.
    let longAppended!: () => void;
    const appended = new Promise<void>((resolve) => (longAppended = resolve));
    let releaseLong!: () => void;
    const released = new Promise<void>((resolve) => (releaseLong = resolve));
    const long = inTransaction(db.pool, async (tx) => {
      await store.append('late-long', [testEvent('Long')], { expectedVersion: 0, tx });
      longAppended();
      await released;
    });
    await appended;
    await store.append('late-short', [testEvent('Short')], { expectedVersion: 0 });
    await naivePoll();
    releaseLong();
    await long;
    await naivePoll();
    await waitFor(() => seen.length >= 2);
    await subscription.stop();

    expect(seenByNaive).toHaveLength(1); // the trap is real: the naive reader never sees 'Long'
    expect(seen.map((e) => e.type).sort()).toEqual(['Long', 'Short']);
  });

  it('delivers exactly every committed event once under concurrent short, long and rolled-back transactions', async () => {
    const seen: StoredEvent[] = [];
    const subscription = new StoreSubscription(
      db.pool,
      { subscriptionId: 'tail', mode: 'at_least_once', pollIntervalMs: 10, batchSize: 37 },
      async (events) => {
        seen.push(...events);
      },
    );
    subscription.start();

    const committed = new Set<string>();
    const writers = Array.from({ length: 12 }, async (_, writer) => {
      for (let i = 0; i < 25; i++) {
        const kind = (writer + i) % 5;
        const events = [testEvent(`W${writer}`), testEvent(`W${writer}`)];
        if (kind === 0) {
          // long: holds its positions while others commit past it
          await inTransaction(db.pool, async (tx) => {
            await store.append(`w-${writer}-${i}`, events, { expectedVersion: 0, tx });
            await sleep(5 + ((writer * 7 + i * 13) % 60));
          });
          events.forEach((e) => committed.add(e.eventId));
        } else if (kind === 1) {
          await inTransaction(db.pool, async (tx) => {
            await store.append(`w-${writer}-${i}`, events, { expectedVersion: 0, tx });
            await sleep(3);
            throw new RolledBack();
          }).catch((error: unknown) => {
            if (!(error instanceof RolledBack)) throw error;
          });
        } else {
          await store.append(`w-${writer}-${i}`, events, { expectedVersion: 0 });
          events.forEach((e) => committed.add(e.eventId));
        }
      }
    });
    await Promise.all(writers);
    await waitFor(() => seen.length >= committed.size);
    await sleep(100); // room for a wrong duplicate to show up
    await subscription.stop();

    const ids = seen.map((e) => e.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(committed);
  });

  it('reads an event held back by an older open transaction as soon as that one ends, without a notification or a poll', async () => {
    const seen: string[] = [];
    // No poll in this test's lifetime: only a NOTIFY or the held-back retry can deliver anything.
    const subscription = new StoreSubscription(
      db.pool,
      { subscriptionId: 'held', mode: 'at_least_once', pollIntervalMs: 3_600_000 },
      async (events) => {
        seen.push(...events.map((e) => e.type));
      },
    );
    subscription.start();
    await sleep(100);
    // An older transaction with an xid (as any writer elsewhere in the cluster has) stays open while
    // the event commits: the event's NOTIFY finds it held back. The older one then ends writing no
    // event, so no second NOTIFY comes.
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_current_xact_id()');
      await store.append('held', [testEvent('HeldBack')], { expectedVersion: 0 });
      await sleep(200);
      expect(seen).toEqual([]); // the trap this guards against: read past the open transaction
      await holder.query('COMMIT');
    } finally {
      holder.release();
    }
    await waitFor(() => seen.length >= 1);
    await subscription.stop();
    expect(seen).toEqual(['HeldBack']);
  });

  it('after a batch with nothing more committed, waits for the next notification instead of looking again at once', async () => {
    // What each tail read found: events ready, and events beyond the checkpoint at all (held back ones included).
    const looks: { ready: number; beyond: number }[] = [];
    const counted = new Proxy(db.pool, {
      get(pool, property, receiver) {
        if (property !== 'query') return Reflect.get(pool, property, receiver) as unknown;
        return async (...args: unknown[]) => {
          const result = (await (pool.query as (...a: unknown[]) => Promise<unknown>)(...args)) as {
            rows: { event_id?: string | null; visible?: number }[];
          };
          if (String(args[0]).includes('pg_snapshot_xmin'))
            looks.push({ ready: result.rows.filter((row) => row.event_id != null).length, beyond: result.rows[0]?.visible ?? 0 });
          return result;
        };
      },
    });
    const handled: string[] = [];
    const subscription = new StoreSubscription(
      counted,
      { subscriptionId: 'no-reread', mode: 'at_least_once', pollIntervalMs: 3_600_000 },
      async (events) => {
        handled.push(...events.map((e) => e.type));
      },
    );
    subscription.start();
    try {
      await waitFor(() => looks.length >= 1); // its first look, at an empty store
      for (const type of ['A', 'B', 'C']) {
        await store.append(`no-reread-${type}`, [testEvent(type)], { expectedVersion: 0 });
        await waitFor(() => handled.includes(type));
      }
    } finally {
      await subscription.stop();
    }
    expect(handled).toEqual(['A', 'B', 'C']);
    // Every later look was woken by a commit: none found the store with nothing beyond its checkpoint.
    // (An open transaction elsewhere on the server may hold an event back: such a look finds it beyond, not ready.)
    expect(looks.slice(1).filter((look) => look.beyond === 0)).toEqual([]);
  });

  it('with a batch interval, reads at most once per interval while events keep coming, and hands over what committed meanwhile', async () => {
    const intervalMs = 1_000;
    // When each tail read was sent (the pool's own queries; a batch's transaction runs on a checked-out client).
    const tailReadsAt: number[] = [];
    const timed = new Proxy(db.pool, {
      get(pool, property, receiver) {
        if (property !== 'query') return Reflect.get(pool, property, receiver) as unknown;
        return (...args: unknown[]) => {
          if (String(args[0]).includes('pg_snapshot_xmin')) tailReadsAt.push(Date.now());
          return (pool.query as (...a: unknown[]) => unknown)(...args);
        };
      },
    });
    const batches: { readonly types: string[]; readonly readsBefore: number }[] = [];
    const subscription = new StoreSubscription(
      timed,
      { subscriptionId: 'paced', mode: 'transactional', pollIntervalMs: 3_600_000, batchIntervalMs: intervalMs },
      async (events) => {
        batches.push({ types: events.map((e) => e.type), readsBefore: tailReadsAt.length });
      },
    );
    subscription.start();
    try {
      await store.append('paced-a', [testEvent('A')], { expectedVersion: 0 });
      await waitFor(() => batches.length === 1);
      // Three commits, each with its notification, while the reader waits out its interval.
      for (const type of ['B', 'C', 'D']) await store.append(`paced-${type}`, [testEvent(type)], { expectedVersion: 0 });
      await waitFor(() => batches.flatMap((b) => b.types).length === 4);
    } finally {
      await subscription.stop();
    }
    expect(batches.flatMap((b) => b.types)).toEqual(['A', 'B', 'C', 'D']);
    // From the read that found A on, each read waited for the interval the one before it began.
    const fromFirstBatch = tailReadsAt.slice((batches[0]?.readsBefore ?? 1) - 1);
    const gaps = fromFirstBatch.slice(1).map((at, i) => at - (fromFirstBatch[i] ?? at));
    expect(gaps.length).toBeGreaterThanOrEqual(1);
    // A timer may fire a millisecond early.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(intervalMs - 2);
  });

  it('a stop during the wait between paced batches does not wait it out', async () => {
    let handled = 0;
    const subscription = new StoreSubscription(
      db.pool,
      // Ten minutes: past the test's own timeout, so a stop that waited would fail it.
      { subscriptionId: 'paced-stop', mode: 'at_least_once', pollIntervalMs: 3_600_000, batchIntervalMs: 600_000 },
      async (events) => {
        handled += events.length;
      },
    );
    subscription.start();
    await store.append('paced-stop', [testEvent('Only')], { expectedVersion: 0 });
    await waitFor(() => handled === 1);
    await subscription.stop();
    expect(handled).toBe(1);
  });

  it('refuses a batch interval that is not a number of milliseconds', () => {
    for (const batchIntervalMs of [Number.NaN, -1, Number.POSITIVE_INFINITY]) {
      expect(
        () => new StoreSubscription(db.pool, { subscriptionId: 'bad', mode: 'at_least_once', batchIntervalMs }, async () => undefined),
      ).toThrow(/batchIntervalMs must be a number of milliseconds/);
    }
  });

  it('with checkpointEveryMs, saves its first batch at once, later ones at most once per interval, and where it is when it stops', async () => {
    const seen: StoredEvent[] = [];
    const subscription = new StoreSubscription(
      db.pool,
      { subscriptionId: 'sparse', mode: 'at_least_once', pollIntervalMs: 20, checkpointEveryMs: 60_000 },
      async (events) => {
        seen.push(...events);
      },
    );
    subscription.start();
    const saved = async (): Promise<bigint> => (await loadCheckpoint(db.pool, 'sparse')).globalPosition;
    try {
      await store.append('sparse', [testEvent('One')], { expectedVersion: 0 });
      await waitFor(() => seen.length === 1);
      const first = seen[0]?.globalPosition;
      await waitFor(async () => (await saved()) === first);
      for (const [i, type] of ['Two', 'Three'].entries()) {
        await store.append('sparse', [testEvent(type)], { expectedVersion: i + 1 });
        await waitFor(() => seen.length === i + 2);
      }
      // The tail ran dry many times since (a poll every 20 ms); the interval is not up, so nothing was saved.
      for (let i = 0; i < 5; i++) subscription.nudge();
      await db.pool.query('SELECT 1');
      expect(await saved()).toBe(first);
    } finally {
      await subscription.stop();
    }
    expect(await saved()).toBe(seen[2]?.globalPosition);
  });

  it('with checkpointEveryMs, saves what it kept once the interval is up and the tail has run dry, without a stop', async () => {
    const seen: StoredEvent[] = [];
    const subscription = new StoreSubscription(
      db.pool,
      // The poll is far away: only the interval brings the loop back to save.
      { subscriptionId: 'due', mode: 'at_least_once', pollIntervalMs: 60_000, checkpointEveryMs: 100 },
      async (events) => {
        seen.push(...events);
      },
    );
    subscription.start();
    try {
      await store.append('due-a', [testEvent('One')], { expectedVersion: 0 });
      await waitFor(() => seen.length === 1);
      await store.append('due-b', [testEvent('Two')], { expectedVersion: 0 });
      await waitFor(() => seen.length === 2);
      await waitFor(async () => (await loadCheckpoint(db.pool, 'due')).globalPosition === seen[1]?.globalPosition);
    } finally {
      await subscription.stop();
    }
  });

  it('with checkpointEveryMs, a drain leaves where it got to saved', async () => {
    await store.append('drained', [testEvent('One')], { expectedVersion: 0 });
    await store.append('drained', [testEvent('Two')], { expectedVersion: 1 });
    const seen: StoredEvent[] = [];
    const subscription = new StoreSubscription(
      db.pool,
      { subscriptionId: 'drained', mode: 'at_least_once', batchSize: 1, checkpointEveryMs: 60_000 },
      async (events) => {
        seen.push(...events);
      },
    );
    expect(await subscription.drain()).toBe(2);
    expect((await loadCheckpoint(db.pool, 'drained')).globalPosition).toBe(seen[1]?.globalPosition);
  });

  it('refuses checkpointEveryMs outside at_least_once, and one that is not a number of milliseconds', () => {
    expect(
      () => new StoreSubscription(db.pool, { subscriptionId: 'bad', mode: 'transactional', checkpointEveryMs: 100 }, async () => undefined),
    ).toThrow(/checkpointEveryMs is for at_least_once only/);
    for (const checkpointEveryMs of [Number.NaN, -1, Number.POSITIVE_INFINITY]) {
      expect(
        () => new StoreSubscription(db.pool, { subscriptionId: 'bad', mode: 'at_least_once', checkpointEveryMs }, async () => undefined),
      ).toThrow(/checkpointEveryMs must be a number of milliseconds/);
    }
  });

  it('resumes from its durable checkpoint after a restart', async () => {
    await store.append('resume', [testEvent('One'), testEvent('Two')], { expectedVersion: 0 });
    const first: string[] = [];
    const a = new StoreSubscription(db.pool, { subscriptionId: 'resume', mode: 'at_least_once' }, async (events) => {
      first.push(...events.map((e) => e.type));
    });
    expect(await a.drain()).toBe(2);

    await store.append('resume', [testEvent('Three')], { expectedVersion: 2 });
    const second: string[] = [];
    const b = new StoreSubscription(db.pool, { subscriptionId: 'resume', mode: 'at_least_once', pollIntervalMs: 20 }, async (events) => {
      second.push(...events.map((e) => e.type));
    });
    b.start();
    await waitFor(() => second.length >= 1);
    await b.stop();
    expect(first).toEqual(['One', 'Two']);
    expect(second).toEqual(['Three']);
  });

  it('in transactional mode two readers of one subscription never both apply a batch', async () => {
    await db.pool.query('CREATE TABLE applied (event_id uuid NOT NULL)');
    for (let i = 0; i < 40; i++) await store.append(`tx-${i}`, [testEvent(), testEvent()], { expectedVersion: 0 });
    const apply = async (
      events: readonly StoredEvent[],
      tx: { query: (sql: string, values: unknown[]) => Promise<unknown> } | null,
    ): Promise<void> => {
      for (const e of events) await tx?.query('INSERT INTO applied VALUES ($1)', [e.eventId]);
      await sleep(5);
    };
    const readers = [1, 2].map(
      () => new StoreSubscription(db.pool, { subscriptionId: 'fenced', mode: 'transactional', batchSize: 7 }, apply),
    );
    const results = await Promise.allSettled(
      readers.map(async (r) => {
        for (;;) {
          try {
            return await r.drain();
          } catch (error) {
            r.forget(); // lost the race for a batch: reload the checkpoint and go on
            void error;
          }
        }
      }),
    );
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
    const rows = await db.pool.query<{ n: string; distinct_n: string }>(
      'SELECT count(*) AS n, count(DISTINCT event_id) AS distinct_n FROM applied',
    );
    expect(rows.rows[0]).toEqual({ n: '80', distinct_n: '80' });
  });

  it('a drain after another reader moved the checkpoint picks up from there instead of failing (a non-leader replica catching up)', async () => {
    await db.pool.query('CREATE TABLE applied_by (reader text NOT NULL, type text NOT NULL)');
    const make = (name: string): StoreSubscription =>
      new StoreSubscription(db.pool, { subscriptionId: 'shared', mode: 'transactional' }, async (events, tx) => {
        for (const e of events) await tx?.query('INSERT INTO applied_by VALUES ($1, $2)', [name, e.type]);
      });
    const a = make('a');
    const b = make('b');
    await store.append('moved', [testEvent('One')], { expectedVersion: 0 });
    expect(await a.drain()).toBe(1);
    await store.append('moved', [testEvent('Two')], { expectedVersion: 1 });
    expect(await b.drain()).toBe(1);
    await store.append('moved', [testEvent('Three')], { expectedVersion: 2 });
    // `a` still remembers the checkpoint after 'One'; the durable one is after 'Two'.
    expect(await a.drain()).toBe(1);
    const applied = await db.pool.query<{ reader: string; type: string }>('SELECT reader, type FROM applied_by');
    expect(applied.rows.map((r) => `${r.reader}:${r.type}`).sort()).toEqual(['a:One', 'a:Three', 'b:Two']);
  });

  it('with exclusive: true only one replica reads; the other takes over when it stops', async () => {
    const byReplica: Record<string, number> = { a: 0, b: 0 };
    const make = (name: string): StoreSubscription =>
      new StoreSubscription(
        db.pool,
        { subscriptionId: 'leader', mode: 'at_least_once', exclusive: true, pollIntervalMs: 20 },
        async (events) => {
          byReplica[name] = (byReplica[name] ?? 0) + events.length;
        },
      );
    const a = make('a');
    const b = make('b');
    a.start();
    // `a` is the leader once it has read something alone (not after a guessed pause).
    await store.append('lead', [testEvent()], { expectedVersion: 0 });
    await waitFor(() => (byReplica['a'] ?? 0) === 1);
    b.start();
    await store.append('lead', [testEvent()], { expectedVersion: 1 });
    await waitFor(() => (byReplica['a'] ?? 0) === 2);
    await a.stop();
    await store.append('lead', [testEvent()], { expectedVersion: 2 });
    await waitFor(() => (byReplica['b'] ?? 0) === 1);
    await b.stop();
    expect(byReplica).toEqual({ a: 2, b: 1 });
  });

  it('a replica standing by is not woken by its own process: it tries for the lead at its poll, not at every nudge', async () => {
    let leaderRead = 0;
    const a = new StoreSubscription(db.pool, { subscriptionId: 'standby', mode: 'at_least_once', exclusive: true }, async (events) => {
      leaderRead += events.length;
    });
    a.start();
    await store.append('standby', [testEvent()], { expectedVersion: 0 });
    await waitFor(() => leaderRead === 1);

    // The standby's connections, each query on them counted: its tries for the leader lock.
    let lockTries = 0;
    const counted = {
      connect: async () => {
        const client = await db.pool.connect();
        const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
        (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
          if (String(args[0]).includes('pg_try_advisory_lock')) lockTries += 1;
          return query(...args);
        };
        return client;
      },
      query: db.pool.query.bind(db.pool),
    };
    const b = new StoreSubscription(
      counted as unknown as typeof db.pool,
      { subscriptionId: 'standby', mode: 'at_least_once', exclusive: true, pollIntervalMs: 60_000 },
      async () => undefined,
    );
    b.start();
    try {
      await waitFor(() => lockTries === 1);
      await db.pool.query('SELECT 1'); // its lock answer handled: b is standing by until its poll, a minute away
      for (let i = 0; i < 20; i++) {
        b.nudge();
        await db.pool.query('SELECT 1'); // time enough for a woken loop to try again
      }
      expect(lockTries).toBe(1);
    } finally {
      await b.stop();
      await a.stop();
    }
  });
});

class RolledBack extends Error {}
