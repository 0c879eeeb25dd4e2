import { type TestDatabase, createTestDatabase, testEvent } from './testing';
import { PostgresEventStore } from './postgres-event-store';
import { DuplicateEventError, WrongExpectedVersionError } from './errors';
import { eventStoreMigrations } from './migrations';
import { runMigrations } from './orm';
import { inTransaction } from './queryable';

describe('PostgresEventStore (real PostgreSQL)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = new PostgresEventStore(db.pool);
  });
  afterAll(() => db.drop());

  it('appends to a new stream and reads it back in order', async () => {
    const result = await store.append('s-read', [testEvent('A', { n: 1 }), testEvent('B', { n: 2 })], { expectedVersion: 'no_stream' });
    expect(result.nextExpectedVersion).toBe(2);
    await store.append('s-read', [testEvent('C')], { expectedVersion: 2 });

    const events = await store.readStream('s-read');
    expect(events.map((e) => [e.type, e.streamVersion])).toEqual([
      ['A', 1],
      ['B', 2],
      ['C', 3],
    ]);
    expect(events[0]?.data).toEqual({ n: 1 });
    expect((await store.readStream('s-read', 3)).map((e) => e.type)).toEqual(['C']);
  });

  it('refuses an append at a version the stream is no longer at', async () => {
    await store.append('s-conflict', [testEvent()], { expectedVersion: 0 });
    await expect(store.append('s-conflict', [testEvent()], { expectedVersion: 0 })).rejects.toBeInstanceOf(WrongExpectedVersionError);
  });

  it('refuses an expected version ahead of the stream (no gaps, enforced by the database)', async () => {
    await store.append('s-gap', [testEvent()], { expectedVersion: 0 });
    await expect(store.append('s-gap', [testEvent()], { expectedVersion: 5 })).rejects.toBeInstanceOf(WrongExpectedVersionError);
    expect(await store.readStream('s-gap')).toHaveLength(1);
  });

  it('lets exactly one of many concurrent writers at the same version win', async () => {
    await store.append('s-race', [testEvent()], { expectedVersion: 0 });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () => store.append('s-race', [testEvent('Raced')], { expectedVersion: 1 })),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(WrongExpectedVersionError);
    expect(await store.readStream('s-race')).toHaveLength(2);
  });

  it("appends with expectedVersion 'any' wherever the stream ends, also under contention", async () => {
    await Promise.all(Array.from({ length: 10 }, () => store.append('s-any', [testEvent()], { expectedVersion: 'any' })));
    const versions = (await store.readStream('s-any')).map((e) => e.streamVersion);
    expect(versions).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('refuses an event id that is already stored', async () => {
    const event = testEvent();
    await store.append('s-dup', [event], { expectedVersion: 0 });
    await expect(store.append('s-dup-2', [event], { expectedVersion: 0 })).rejects.toBeInstanceOf(DuplicateEventError);
  });

  it('appends to several streams in one statement: all in one transaction, chained per stream', async () => {
    await store.append('together-a', [testEvent('A1')], { expectedVersion: 0 });
    const statements: string[] = [];
    const counted = { query: (...args: Parameters<typeof db.pool.query>) => (statements.push(String(args[0])), db.pool.query(...args)) };
    const together = new PostgresEventStore(counted as unknown as typeof db.pool);

    const written = await together.appendTogether([
      { streamId: 'together-a', events: [testEvent('A2'), testEvent('A3')], expectedVersion: 1 },
      { streamId: 'together-b', events: [testEvent('B1')], expectedVersion: 0 },
    ]);

    expect(written).toBe(true);
    expect(statements.filter((text) => text.includes('INSERT INTO onceport.events'))).toHaveLength(1);
    const a = await store.readStream('together-a');
    const b = await store.readStream('together-b');
    expect(a.map((e) => [e.type, e.streamVersion])).toEqual([
      ['A1', 1],
      ['A2', 2],
      ['A3', 3],
    ]);
    expect(b.map((e) => [e.type, e.streamVersion])).toEqual([['B1', 1]]);
    expect(new Set([a[1]?.transactionId, a[2]?.transactionId, b[0]?.transactionId]).size).toBe(1);
    expect(a[1]?.prevHash).toEqual(a[0]?.chainHash);
    expect(a[2]?.prevHash).toEqual(a[1]?.chainHash);
  });

  it('appends together all or none: a stream not at its expected version writes nothing and is named', async () => {
    await store.append('none-a', [testEvent()], { expectedVersion: 0 });
    await store.append('none-b', [testEvent()], { expectedVersion: 0 });
    const refused = store.appendTogether([
      { streamId: 'none-a', events: [testEvent('Kept')], expectedVersion: 1 },
      { streamId: 'none-b', events: [testEvent('Late')], expectedVersion: 0 },
    ]);
    await expect(refused).rejects.toBeInstanceOf(WrongExpectedVersionError);
    await expect(refused).rejects.toMatchObject({ streamId: 'none-b' });
    expect((await store.readStream('none-a')).map((e) => e.streamVersion)).toEqual([1]);
  });

  it("appends together only if the guard returns a row, and the guard's writes commit with them", async () => {
    await db.pool.query('CREATE TABLE IF NOT EXISTS guarded_places (place int PRIMARY KEY)');
    const take = (place: number) => ({
      text: 'INSERT INTO guarded_places VALUES ($1) ON CONFLICT DO NOTHING RETURNING place',
      values: [place],
    });

    expect(await store.appendTogether([{ streamId: 'guarded', events: [testEvent('First')], expectedVersion: 0 }], take(1))).toBe(true);
    expect(await store.appendTogether([{ streamId: 'guarded', events: [testEvent('Refused')], expectedVersion: 1 }], take(1))).toBe(false);
    expect((await store.readStream('guarded')).map((e) => e.type)).toEqual(['First']);

    // The appends fail: the guard's row goes with them.
    const conflict = store.appendTogether([{ streamId: 'guarded', events: [testEvent('Stale')], expectedVersion: 0 }], take(2));
    await expect(conflict).rejects.toBeInstanceOf(WrongExpectedVersionError);
    expect((await db.pool.query('SELECT place FROM guarded_places ORDER BY place')).rows).toEqual([{ place: 1 }]);
  });

  it("tells its listener of each commit, where the events landed: on its own pool, and in a caller's transaction once it committed; not of refused ones", async () => {
    const told: { streamId: string; streamVersion: number; type: string; globalPosition: bigint }[][] = [];
    const listening = new PostgresEventStore(db.pool, undefined, (events) =>
      told.push(events.map(({ streamId, streamVersion, type, globalPosition }) => ({ streamId, streamVersion, type, globalPosition }))),
    );
    const at = await listening.append('told-a', [testEvent('A1'), testEvent('A2')], { expectedVersion: 0 });
    await listening.append('told-a', [testEvent('A3')], { expectedVersion: 'any' });
    await listening.appendTogether([
      { streamId: 'told-b', events: [testEvent('B1')], expectedVersion: 0 },
      { streamId: 'told-c', events: [testEvent('C1')], expectedVersion: 0 },
    ]);
    await inTransaction(db.pool, (tx) => listening.append('told-d', [testEvent('D1')], { expectedVersion: 0, tx }));
    await expect(listening.append('told-a', [testEvent('Stale')], { expectedVersion: 0 })).rejects.toBeInstanceOf(
      WrongExpectedVersionError,
    );
    const refusing = { text: 'SELECT 1 WHERE false', values: [] };
    expect(await listening.appendTogether([{ streamId: 'told-e', events: [testEvent('E1')], expectedVersion: 0 }], refusing)).toBe(false);

    expect(told.map((events) => events.map((e) => `${e.streamId}@${e.streamVersion}:${e.type}`))).toEqual([
      ['told-a@1:A1', 'told-a@2:A2'],
      ['told-a@3:A3'],
      ['told-b@1:B1', 'told-c@1:C1'],
      ['told-d@1:D1'],
    ]);
    expect(told[0]?.map((e) => e.globalPosition)).toEqual(at.globalPositions);
    const stored = await listening.readStream('told-a');
    expect(
      told
        .flat()
        .filter((e) => e.streamId === 'told-a')
        .map((e) => e.globalPosition),
    ).toEqual(stored.map((e) => e.globalPosition));
  });

  it('a listener that throws changes nothing for the writer', async () => {
    const throwing = new PostgresEventStore(db.pool, undefined, () => {
      throw new Error('listener broke');
    });
    await expect(throwing.append('told-throw', [testEvent()], { expectedVersion: 0 })).resolves.toMatchObject({ nextExpectedVersion: 1 });
  });

  it('reads all events by global position, in pages', async () => {
    const all = await store.readAll({ limit: 10_000 });
    const positions = all.map((e) => e.globalPosition);
    expect([...positions].sort((a, b) => (a < b ? -1 : 1))).toEqual(positions);
    const page = await store.readAll({ after: positions[1], limit: 2 });
    expect(page.map((e) => e.globalPosition)).toEqual(positions.slice(2, 4));
  });

  it.each([
    ['UPDATE', `UPDATE onceport.events SET data = '{}'`],
    ['DELETE', 'DELETE FROM onceport.events'],
    ['TRUNCATE', 'TRUNCATE onceport.events'],
  ])('refuses %s on the events table in the database itself', async (_op, sql) => {
    await store.append(`s-append-only-${_op}`, [testEvent()], { expectedVersion: 0 });
    await expect(db.pool.query(sql)).rejects.toThrow(/append-only/);
  });

  it('runs its migrations twice, and concurrently, without applying anything twice', async () => {
    expect(await runMigrations(db.url, eventStoreMigrations)).toEqual([]);
    const fresh = await createTestDatabaseWithoutMigrations();
    try {
      const results = await Promise.all([runMigrations(fresh.url, eventStoreMigrations), runMigrations(fresh.url, eventStoreMigrations)]);
      expect(results.flat()).toEqual(['001-event-store', '002-notify-after-commit', '009-event-quarantine']);
    } finally {
      await fresh.drop();
    }
  });
});

async function createTestDatabaseWithoutMigrations(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  await db.pool.query('DROP SCHEMA onceport CASCADE');
  return db;
}
