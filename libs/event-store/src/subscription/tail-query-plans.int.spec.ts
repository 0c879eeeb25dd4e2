import type { QueryResult } from 'pg';
import type { Queryable } from '../queryable';
import { createTestDatabase, type TestDatabase } from '../testing';
import { headCheckpoint } from './head-checkpoint';
import { hasHeldBackEvents } from './held-back';
import { readCommittedAfter } from './read-committed-after';

/**
 * Every service prepares its statements, and PostgreSQL switches a prepared statement to a generic
 * plan (one that ignores the values) after a few runs when that looks no dearer. A tail query
 * planned generically must still walk the tail index: a sequential scan costs time in proportion
 * to the whole store, on every look. Measured, the held-back check's generic plan was such a scan:
 * 16 ms a call on a bench store, two thirds of PostgreSQL's time per execution.
 */
describe('the tail queries under a generic plan', () => {
  let db: TestDatabase;
  const STORE_SIZE = 20_000;

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query(`
      INSERT INTO onceport.events (event_id, stream_id, stream_version, event_type, schema_version, data, metadata, recorded_at, content_hash)
      SELECT gen_random_uuid(), 'plan-' || g, 1, 'TestHappened', 1, '{}', '{}', now(), sha256(g::text::bytea)
        FROM generate_series(1, ${STORE_SIZE}) AS g`);
    await db.pool.query('ANALYZE onceport.events');
  });

  afterAll(async () => {
    await db.drop();
  });

  /** Plans each query it is handed as a generic prepared statement and keeps the plan; answers with no rows. */
  async function genericPlansOf(run: (probe: Queryable) => Promise<unknown>): Promise<string[]> {
    const client = await db.pool.connect();
    const plans: string[] = [];
    try {
      await client.query('SET plan_cache_mode = force_generic_plan');
      const probe: Queryable = {
        query: async (text, values = []) => {
          await client.query(`PREPARE probed AS ${text}`);
          const args = values.map((value) => client.escapeLiteral(String(value))).join(', ');
          const explained = await client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) EXECUTE probed${args ? `(${args})` : ''}`);
          await client.query('DEALLOCATE probed');
          plans.push(JSON.stringify(explained.rows[0]?.['QUERY PLAN']));
          return { rows: [], rowCount: 0 } as unknown as QueryResult<never>;
        },
      };
      await run(probe);
    } finally {
      await client.query('RESET plan_cache_mode');
      client.release();
    }
    return plans;
  }

  const checkpoint = { transactionId: 1n, globalPosition: BigInt(STORE_SIZE) };

  it.each([
    ['the held-back check', (probe: Queryable) => hasHeldBackEvents(probe, checkpoint)],
    ['the committed read', (probe: Queryable) => readCommittedAfter(probe, checkpoint, 100)],
    ['the head checkpoint', (probe: Queryable) => headCheckpoint(probe)],
  ])('%s walks the tail index, never the whole store', async (_name, run) => {
    const plans = await genericPlansOf(run);

    expect(plans).toHaveLength(1);
    expect(plans[0]).toContain('events_tail_idx');
    expect(plans[0]).not.toContain('Seq Scan');
  });
});
