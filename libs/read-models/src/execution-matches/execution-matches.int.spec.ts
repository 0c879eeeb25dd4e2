import { executionStreamId, parseEvent } from '@onceport/contracts';
import { recordedHistories } from '@onceport/contracts/testing';
import { foldEvents } from '@onceport/domain';
import type { MikroORM } from '@mikro-orm/postgresql';
import { type JsonObject, PostgresEventStore, ProjectionRunner, openOrm } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { ExecutionMatchesMigration } from './execution-matches.migration';
import { executionMatchesProjection } from './execution-matches.projection';
import { readModelEntities } from '../read-model.entities';
import { findMatchCandidates } from './find-match-candidates';

interface Envelope {
  type: string;
  schemaVersion: number;
  data: JsonObject & { executionId: string };
  metadata: JsonObject & { eventId: string };
}

describe('execution-matches read model (real PostgreSQL)', () => {
  let db: TestDatabase;
  let runner: ProjectionRunner;
  let orm: MikroORM;
  const histories = Object.entries(recordedHistories).map(([name, events]) => ({ name, events: events as Envelope[] }));

  beforeAll(async () => {
    db = await createTestDatabase([ExecutionMatchesMigration]);
    const store = new PostgresEventStore(db.pool);
    for (const { events } of histories) {
      const stream = executionStreamId(events[0]!.data.executionId);
      // Append in two batches so the projection sees a stream across several of its own batches.
      const half = Math.ceil(events.length / 2);
      const asNew = (e: Envelope) => ({
        eventId: e.metadata.eventId,
        type: e.type,
        schemaVersion: e.schemaVersion,
        data: e.data,
        metadata: e.metadata,
      });
      await store.append(stream, events.slice(0, half).map(asNew), { expectedVersion: 0 });
      if (events.length > half) await store.append(stream, events.slice(half).map(asNew), { expectedVersion: half });
    }
    runner = new ProjectionRunner(db.pool, executionMatchesProjection, { batchSize: 3 });
    orm = await openOrm({ databaseUrl: db.url, entities: readModelEntities });
  });
  afterAll(async () => {
    await orm?.close();
    await db.drop();
  });

  const rows = async () =>
    (
      await db.pool.query(
        'SELECT execution_id, fingerprint, actor, intent_scope, status, stream_version, state FROM onceport.execution_matches ORDER BY execution_id',
      )
    ).rows;

  it('folds every recorded history into one row with the state the decider derives', async () => {
    await runner.catchUp();
    const byId = new Map((await rows()).map((row) => [row.execution_id as string, row]));
    expect(byId.size).toBe(histories.length);
    for (const { name, events } of histories) {
      const expected = foldEvents(events.map((e) => parseEvent(e)));
      const row = byId.get(events[0]!.data.executionId);
      expect({ name, status: row?.status, version: row?.stream_version }).toEqual({
        name,
        status: expected.status,
        version: events.length,
      });
      expect(row?.state).toEqual(JSON.parse(JSON.stringify(expected)));
    }
  });

  it('catching up again changes nothing; a rebuild from zero yields the same rows', async () => {
    const before = await rows();
    expect(await runner.catchUp()).toBe(0);
    expect(await runner.rebuild()).toBeGreaterThan(0);
    expect(await rows()).toEqual(before);
  });

  it('finds prior executions of an intent by fingerprint, actor and scope, newest first', async () => {
    await runner.catchUp();
    const [first] = await rows();
    const candidates = await findMatchCandidates(orm.em, {
      fingerprints: [first.fingerprint, 'hmac-sha256:old:00'],
      actor: first.actor,
      intentScope: first.intent_scope,
    });
    expect(candidates.map((c) => c.executionId)).toContain(first.execution_id);
    expect(
      await findMatchCandidates(orm.em, { fingerprints: [first.fingerprint], actor: 'someone-else', intentScope: first.intent_scope }),
    ).toEqual([]);
  });

  it('applies a batch of many executions in one read and one write, and an older batch again changes nothing', async () => {
    await runner.catchUp();
    const before = await rows();
    const all = await new PostgresEventStore(db.pool).readAll({ limit: 10_000 });
    expect(new Set(all.map((e) => e.streamId)).size).toBe(histories.length);
    await db.pool.query('DELETE FROM onceport.execution_matches');
    const statements: string[] = [];
    const counting = {
      query: (text: string, values?: unknown[]) => (statements.push(text.trim().split(/\s+/)[0] ?? ''), db.pool.query(text, values)),
    };
    await executionMatchesProjection.apply(all, counting as unknown as typeof db.pool);
    expect(statements).toEqual(['SELECT', 'INSERT']);
    expect(await rows()).toEqual(before);
    // The first event of every stream again: each row is newer than that, so none goes back.
    await executionMatchesProjection.apply(
      all.filter((e) => e.streamVersion === 1),
      db.pool,
    );
    expect(await rows()).toEqual(before);
  });
});
