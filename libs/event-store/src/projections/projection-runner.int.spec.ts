import { setTimeout as sleep } from 'node:timers/promises';
import { PostgresEventStore } from '../postgres-event-store';
import type { Projection } from './projection';
import { ProjectionRunner } from './projection-runner';
import { CHECKPOINT_START, overwriteCheckpoint } from '../subscription/checkpoint';
import { type TestDatabase, createTestDatabase, testEvent } from '../testing';
import { sqlMigration } from '../migrations';

/**
 * Counts events per stream with `count = count + 1`: deliberately NOT idempotent on its own, so
 * any event the runner applies twice shows up as a wrong count.
 */
function countingProjection(name: string): Projection {
  const table = `counts_${name}`;
  return {
    name,
    migrations: [
      sqlMigration(
        `900-${table}`,
        `CREATE TABLE ${table} (stream_id text PRIMARY KEY, events integer NOT NULL, last_version integer NOT NULL)`,
      ),
    ],
    async apply(events, tx) {
      for (const event of events) {
        await tx.query(
          `INSERT INTO ${table} AS t (stream_id, events, last_version) VALUES ($1, 1, $2)
           ON CONFLICT (stream_id) DO UPDATE SET events = t.events + 1, last_version = excluded.last_version`,
          [event.streamId, event.streamVersion],
        );
      }
    },
    async reset(tx) {
      await tx.query(`DELETE FROM ${table}`);
    },
  };
}

describe('ProjectionRunner (real PostgreSQL)', () => {
  const live = countingProjection('live');
  const fresh = countingProjection('fresh');
  let db: TestDatabase;
  let store: PostgresEventStore;

  beforeEach(async () => {
    db = await createTestDatabase([...fresh.migrations, ...live.migrations]); // ids ascend: fresh < live;
    store = new PostgresEventStore(db.pool);
  });
  afterEach(() => db.drop());

  const rows = async (projection: Projection): Promise<unknown[]> =>
    (await db.pool.query(`SELECT stream_id, events, last_version FROM counts_${projection.name} ORDER BY stream_id`)).rows;
  const appendMany = async (count: number, prefix: string): Promise<void> => {
    for (let i = 0; i < count; i++)
      await store.append(`${prefix}-${i % 7}`, [testEvent('TestHappened', { i })], { expectedVersion: 'any' });
  };

  it('re-reading a batch after its checkpoint was rewound (table kept) leaves the same rows', async () => {
    await appendMany(40, 'rewind');
    expect(await new ProjectionRunner(db.pool, live, { batchSize: 6 }).catchUp()).toBe(40);
    const before = await rows(live);
    expect(before).toHaveLength(7);

    // The checkpoint goes back (an operator's rewind, a restored backup) but the read model stays.
    await overwriteCheckpoint(db.pool, `projection:${live.name}`, CHECKPOINT_START);
    expect(await new ProjectionRunner(db.pool, live, { batchSize: 6 }).catchUp()).toBe(40); // every event read again…
    expect(await rows(live)).toEqual(before); // …none applied again

    // Newer events after the rewind are still applied, once.
    await appendMany(5, 'rewind');
    await new ProjectionRunner(db.pool, live, { batchSize: 6 }).catchUp();
    const total = await db.pool.query<{ n: string }>(`SELECT sum(events)::text AS n FROM counts_${live.name}`);
    expect(total.rows[0]?.n).toBe('45');
  });

  it('a rebuild from zero while the runner is started ends with the rows of a fresh run', async () => {
    await appendMany(60, 'rebuild');
    const errors: unknown[] = [];
    const runner = new ProjectionRunner(db.pool, live, { batchSize: 5, pollIntervalMs: 50, onError: (e) => errors.push(e) });
    runner.start();
    try {
      const writer = (async () => {
        for (let i = 0; i < 60; i++) {
          await store.append(`rebuild-${i % 7}`, [testEvent('TestHappened', { i })], { expectedVersion: 'any' });
          runner.nudge();
          await sleep(5);
        }
      })();
      await sleep(100);
      // A read model gone wrong: only a rebuild from zero drops this row.
      await db.pool.query(`INSERT INTO counts_${live.name} (stream_id, events, last_version) VALUES ('stray', 99, 99)`);
      // How many events this call applied itself depends on who wins each batch: the started
      // runner, nudged by the writer, may apply all of them (the loser's batch is fenced out).
      // The end state below is what must hold.
      await runner.rebuild();
      await writer;
      await runner.catchUp();
    } finally {
      await runner.stop();
    }
    expect(await new ProjectionRunner(db.pool, fresh, { batchSize: 13 }).catchUp()).toBe(120);
    const freshRows = await rows(fresh);
    const total = await db.pool.query<{ n: string }>(`SELECT sum(events)::text AS n FROM counts_${fresh.name}`);
    expect(total.rows[0]?.n).toBe('120');
    expect(await rows(live)).toEqual(freshRows);
  });
});
