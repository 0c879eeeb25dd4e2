import { PostgresEventStore } from '../postgres-event-store';
import { type TestDatabase, createTestDatabase, testEvent } from '../testing';
import { verifyChains } from './chain-verifier';
import { readChainsFromDatabase } from './read-chains-from-database';

/**
 * Tampering needs the append-only triggers out of the way, as an attacker with superuser rights
 * would have them: `session_replication_role = replica` skips ordinary triggers.
 */
describe('hash chain verification (real PostgreSQL)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;

  beforeEach(async () => {
    db = await createTestDatabase();
    store = new PostgresEventStore(db.pool);
    for (const stream of ['a', 'b', 'c']) {
      await store.append(
        stream,
        [1, 2, 3, 4].map((n) => testEvent(`E${n}`, { n, stream })),
        { expectedVersion: 0 },
      );
    }
  });
  afterEach(() => db.drop());

  const verifyDatabase = () => verifyChains(readChainsFromDatabase(db.pool, 3));
  const tamper = async (...statements: string[]): Promise<void> => {
    const client = await db.pool.connect();
    try {
      await client.query("SET session_replication_role = 'replica'");
      for (const sql of statements) await client.query(sql);
    } finally {
      client.release(true);
    }
  };

  it('passes an untouched store, read stream by stream or in global order', async () => {
    expect(await verifyDatabase()).toEqual({ eventsChecked: 12, streamsChecked: 3, firstBrokenLink: null });
    const globalOrder = await store.readAll();
    expect((await verifyChains(globalOrder)).firstBrokenLink).toBeNull();
  });

  it('names a changed event', async () => {
    await tamper(`UPDATE onceport.events SET data = jsonb_set(data, '{n}', '99') WHERE stream_id = 'b' AND stream_version = 2`);
    expect((await verifyDatabase()).firstBrokenLink).toMatchObject({ streamId: 'b', streamVersion: 2, problem: 'content_changed' });
  });

  it('names the link after a removed event', async () => {
    await tamper(`DELETE FROM onceport.events WHERE stream_id = 'b' AND stream_version = 2`);
    expect((await verifyDatabase()).firstBrokenLink).toMatchObject({ streamId: 'b', streamVersion: 3, problem: 'version_gap' });
  });

  it('finds a removed event even when the later versions were renumbered to close the gap', async () => {
    await tamper(
      `DELETE FROM onceport.events WHERE stream_id = 'b' AND stream_version = 2`,
      `UPDATE onceport.events SET stream_version = stream_version + 100 WHERE stream_id = 'b' AND stream_version > 2`,
      `UPDATE onceport.events SET stream_version = stream_version - 101 WHERE stream_id = 'b' AND stream_version > 100`,
    );
    expect((await verifyDatabase()).firstBrokenLink).toMatchObject({ streamId: 'b', streamVersion: 2 });
  });

  it('finds an inserted event, even one whose own hashes are recomputed to look valid', async () => {
    // Forge: make room at version 3 and insert a copy of version 2's row there with a fresh id.
    await tamper(
      `UPDATE onceport.events SET stream_version = stream_version + 100 WHERE stream_id = 'c' AND stream_version >= 3`,
      `UPDATE onceport.events SET stream_version = stream_version - 99 WHERE stream_id = 'c' AND stream_version > 100`,
      `INSERT INTO onceport.events (event_id, stream_id, stream_version, event_type, schema_version, data, metadata, recorded_at, content_hash, prev_hash, chain_hash)
       SELECT gen_random_uuid(), stream_id, 3, event_type, schema_version, data, metadata, recorded_at, content_hash, chain_hash, sha256(chain_hash || content_hash)
       FROM onceport.events WHERE stream_id = 'c' AND stream_version = 2`,
    );
    const broken = (await verifyDatabase()).firstBrokenLink;
    expect(broken).toMatchObject({ streamId: 'c', streamVersion: 3 });
  });

  it('finds two events that swapped places', async () => {
    await tamper(
      `UPDATE onceport.events SET stream_version = 100 WHERE stream_id = 'a' AND stream_version = 2`,
      `UPDATE onceport.events SET stream_version = 2 WHERE stream_id = 'a' AND stream_version = 3`,
      `UPDATE onceport.events SET stream_version = 3 WHERE stream_id = 'a' AND stream_version = 100`,
    );
    expect((await verifyDatabase()).firstBrokenLink).toMatchObject({ streamId: 'a', streamVersion: 2 });
  });
});
