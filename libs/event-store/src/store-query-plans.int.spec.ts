import { PostgresEventStore } from './postgres-event-store';
import type { Queryable } from './queryable';
import { createTestDatabase, genericPlansOf, type TestDatabase } from './testing';
import { headCheckpoint } from './subscription/head-checkpoint';
import { readTail } from './subscription/read-committed-after';

/**
 * Services prepare their statements, and PostgreSQL may plan a prepared statement generically (see
 * genericPlansOf). A read planned generically must still walk an index: a sequential scan costs time in proportion
 * to the whole store, on every look. Measured, the held-back check's generic plan (then a statement of its own) was such a scan:
 * 16 ms a call on a bench store, two thirds of PostgreSQL's time per execution.
 *
 * Two stores, because a generic plan is kept for the connection's life, and nothing replans it until the table's
 * statistics change: a service that starts on a fresh store plans on a few unanalyzed rows and keeps that plan while
 * the store grows (until autovacuum's first ANALYZE, a minute or more away). Measured: the several-stream read,
 * planned on a fresh store, hashed the whole store on every call: 1,000 blocks and 6 ms a call at 30,000 events.
 */
describe.each([
  ['a store of 20,000 analyzed events', 20_000, true],
  ['a fresh store of a few events, never analyzed', 12, false],
])("the store's reads under a generic plan, on %s", (_store, storeSize, analyzed) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query(`
      INSERT INTO onceport.events (event_id, stream_id, stream_version, event_type, schema_version, data, metadata, recorded_at, content_hash)
      SELECT gen_random_uuid(), 'plan-' || g, 1, 'TestHappened', 1, '{}', '{}', now(), sha256(g::text::bytea)
        FROM generate_series(1, ${storeSize}) AS g`);
    if (analyzed) await db.pool.query('ANALYZE onceport.events');
  });

  afterAll(async () => {
    await db.drop();
  });

  const checkpoint = () => ({ transactionId: 1n, globalPosition: BigInt(storeSize) });

  it.each([
    ['the tail read (and its look for held-back events)', (probe: Queryable) => readTail(probe, checkpoint(), 100)],
    ['the head checkpoint', (probe: Queryable) => headCheckpoint(probe)],
  ])('%s walks the tail index, never the whole store', async (_name, run) => {
    const plans = await genericPlansOf(db.pool, run);

    expect(plans).toHaveLength(1);
    expect(plans[0]).toContain('events_tail_idx');
    expect(plans[0]).not.toContain('Seq Scan');
  });

  it.each([
    ['a stream read', (probe: Queryable) => new PostgresEventStore(probe).readStream('plan-7', 1)],
    [
      'a read of several streams',
      (probe: Queryable) =>
        new PostgresEventStore(probe).readStreams([
          { streamId: 'plan-7', fromVersion: 1 },
          { streamId: 'plan-8', fromVersion: 1 },
        ]),
    ],
  ])('%s walks the stream index, never the whole store', async (_name, run) => {
    const plans = await genericPlansOf(db.pool, run);

    expect(plans).toHaveLength(1);
    expect(plans[0]).toContain('events_stream_version_unique');
    expect(plans[0]).not.toContain('Seq Scan');
  });
});
