import { randomBytes, randomUUID } from 'node:crypto';
import { executionStreamId } from '@onceport/contracts';
import { recordedHistories } from '@onceport/contracts/testing';
import { newExecutionId } from '@onceport/domain';
import { type JsonObject, PostgresEventStore, ProjectionRunner, eventStoreMigrations, openOrm, runMigrations } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { ExecutionMatchesIntentDigestMigration } from './execution-matches-intent-digest.migration';
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

/** A recorded history re-keyed to a new execution whose intent scope is `intentScope` (as an MCP call could once send). */
function historyWithScope(intentScope: string): { executionId: string; events: Envelope[] } {
  const [, events] = Object.entries(recordedHistories)[0]!;
  const executionId = newExecutionId(Date.now(), randomBytes(10));
  const rewritten = (events as Envelope[]).map((event) => {
    const data = {
      ...event.data,
      executionId,
      ...(event.type === 'ExecutionAccepted'
        ? { intentScope, record: { ...(event.data['record'] as JsonObject), intent_scope: intentScope } }
        : {}),
    };
    const eventId = randomUUID();
    return { ...event, data, metadata: { ...event.metadata, eventId } };
  });
  return { executionId, events: rewritten };
}

/** Random base64: it does not compress, so a btree entry holding it directly would pass the ~2.7 kB row limit. */
const LONG_SCOPE = `run:${randomBytes(6000).toString('base64')}`;

async function append(db: TestDatabase, history: { executionId: string; events: Envelope[] }): Promise<void> {
  const store = new PostgresEventStore(db.pool);
  const asNew = (e: Envelope) => ({
    eventId: e.metadata.eventId,
    type: e.type,
    schemaVersion: e.schemaVersion,
    data: e.data,
    metadata: e.metadata,
  });
  await store.append(executionStreamId(history.executionId), history.events.map(asNew), { expectedVersion: 0 });
}

describe('execution-matches with an intent scope of 8 kB (real PostgreSQL)', () => {
  let digest: TestDatabase;
  let plain: TestDatabase;

  beforeAll(async () => {
    [digest, plain] = await Promise.all([
      createTestDatabase(executionMatchesProjection.migrations),
      createTestDatabase([ExecutionMatchesMigration]),
    ]);
  });
  afterAll(() => Promise.all([digest?.drop(), plain?.drop()]));

  it('without the digest index the event cannot be projected at all (what stopped the reconciler)', async () => {
    await append(plain, historyWithScope(LONG_SCOPE));
    await expect(new ProjectionRunner(plain.pool, executionMatchesProjection, { batchSize: 50 }).catchUp()).rejects.toThrow(
      /index row (size|requires)/,
    );
  });

  it('with it, the event is projected, later events keep flowing, and the execution is found by its full scope', async () => {
    const long = historyWithScope(LONG_SCOPE);
    const after = historyWithScope('run:ordinary');
    await append(digest, long);
    await append(digest, after);
    const runner = new ProjectionRunner(digest.pool, executionMatchesProjection, { batchSize: 50 });
    await runner.catchUp();
    const rows = await digest.pool.query<{ execution_id: string; intent_scope: string }>(
      'SELECT execution_id, intent_scope FROM onceport.execution_matches',
    );
    expect(new Map(rows.rows.map((r) => [r.execution_id, r.intent_scope]))).toEqual(
      new Map([
        [long.executionId, LONG_SCOPE],
        [after.executionId, 'run:ordinary'],
      ]),
    );
    const accepted = long.events.find((e) => e.type === 'ExecutionAccepted')!.data;
    const lookup = { fingerprints: [String(accepted['fingerprint'])], actor: String(accepted['actor']) };
    const orm = await openOrm({ databaseUrl: digest.url, entities: readModelEntities });
    try {
      expect((await findMatchCandidates(orm.em, { ...lookup, intentScope: LONG_SCOPE })).map((c) => c.executionId)).toEqual([
        long.executionId,
      ]);
      expect(await findMatchCandidates(orm.em, { ...lookup, intentScope: `${LONG_SCOPE}x` })).toEqual([]);
    } finally {
      await orm.close();
    }
  });

  it('upgrading a database stuck on such an event: the migration applies over the existing rows and the projection catches up', async () => {
    const runner = new ProjectionRunner(plain.pool, executionMatchesProjection, { batchSize: 50 });
    expect(
      await runMigrations(plain.url, [...eventStoreMigrations, ExecutionMatchesMigration, ExecutionMatchesIntentDigestMigration]),
    ).toEqual(['101-execution-matches-intent-digest']);
    await runner.catchUp();
    const scopes = await plain.pool.query<{ intent_scope: string }>('SELECT intent_scope FROM onceport.execution_matches');
    expect(scopes.rows.map((r) => r.intent_scope)).toEqual([LONG_SCOPE]);
  });

  it('the lookup uses the digest index', async () => {
    const client = await digest.pool.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        "EXPLAIN SELECT 1 FROM onceport.execution_matches WHERE fingerprint = ANY('{a}') AND actor = 'b' AND md5(intent_scope) = md5('c') AND intent_scope = 'c'",
      );
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('execution_matches_intent_digest_idx');
    } finally {
      client.release(true);
    }
  });
});
