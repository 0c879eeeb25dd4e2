import { randomUUID } from 'node:crypto';
import { executionStreamId, runStreamId } from '@onceport/contracts';
import { recordedHistories, recordedStreams } from '@onceport/contracts/testing';
import { type JsonObject, PostgresEventStore, ProjectionRunner } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { pageOfRuns } from './run-queries';
import { RunsListingMigration } from './runs-listing.migration';
import { RunsMigration } from './runs.migration';
import { runsProjection } from './runs.projection';

interface Envelope {
  type: string;
  schemaVersion: number;
  data: JsonObject;
  metadata: JsonObject & { eventId: string };
}

const asNew = (e: Envelope) => ({
  eventId: e.metadata.eventId,
  type: e.type,
  schemaVersion: e.schemaVersion,
  data: e.data,
  metadata: e.metadata,
});

function opened(runId: string, actor: string, trigger: string, openedAt: string): Envelope {
  return {
    type: 'RunOpened',
    schemaVersion: 1,
    data: { runId, actor, trigger, openedAt },
    metadata: { eventId: randomUUID(), correlationId: runStreamId(runId), causationId: 'test', occurredAt: openedAt },
  };
}

/**
 * The operators' runs list over real PostgreSQL: every run newest first (ties by run id), filtered
 * by actor or trigger, paged by a keyset cursor that neither skips nor repeats a run opened in the
 * same millisecond, with each run's last activity (its last call or attempt).
 */
describe('runs list (real PostgreSQL)', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase([RunsMigration, RunsListingMigration]);
    const store = new PostgresEventStore(db.pool);
    // The recorded run (attempt 2 forced at 11:30) and its recorded execution (asked again at 11:31:12).
    const [recorded] = recordedStreams('runs');
    await store.append(recorded!.streamId, (recorded!.events as unknown as Envelope[]).map(asNew), { expectedVersion: 0 });
    const history = recordedHistories['run-attempt-2-ledger-hit'] as Envelope[];
    await store.append(executionStreamId(String(history[0]!.data['executionId'])), history.map(asNew), { expectedVersion: 0 });
    const others = [
      opened('mail-1', 'agent:mailer', 'ticket:OPS-1', '2026-12-02T08:00:00.000Z'),
      opened('bill-1', 'agent:billing', 'ticket:OPS-1', '2026-12-03T08:00:00.000Z'),
      // Three runs in the same millisecond: the page boundary falls among them below.
      opened('tie-a', 'agent:billing', 'schedule:nightly', '2026-12-04T08:00:00.000Z'),
      opened('tie-b', 'agent:mailer', 'schedule:nightly', '2026-12-04T08:00:00.000Z'),
      opened('tie-c', 'agent:billing', 'schedule:nightly', '2026-12-04T08:00:00.000Z'),
    ];
    for (const event of others) await store.append(runStreamId(String(event.data['runId'])), [asNew(event)], { expectedVersion: 0 });
    await new ProjectionRunner(db.pool, runsProjection).catchUp();
  });
  afterAll(async () => {
    await db?.drop();
  });

  const ids = (page: { runs: readonly { runId: string }[] } | null) => page?.runs.map((run) => run.runId);

  it('lists every run newest first, ties in the same millisecond ordered by run id', async () => {
    const page = await pageOfRuns(db.pool, { limit: 50 });
    expect(ids(page)).toEqual(['tie-c', 'tie-b', 'tie-a', 'bill-1', 'mail-1', 'campaign-winter-2026']);
    expect(page?.next).toBeNull();
  });

  it('pages by cursor through same-millisecond runs without skipping or repeating one', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await pageOfRuns(db.pool, { limit: 2, ...(after === undefined ? {} : { after }) });
      expect(page?.runs.length).toBeLessThanOrEqual(2);
      seen.push(...ids(page)!);
      if (!page?.next) break;
      after = page.next;
    }
    expect(seen).toEqual(['tie-c', 'tie-b', 'tie-a', 'bill-1', 'mail-1', 'campaign-winter-2026']);
  });

  it('filters by actor and by trigger, together with the cursor', async () => {
    expect(ids(await pageOfRuns(db.pool, { actor: 'agent:billing', limit: 50 }))).toEqual(['tie-c', 'tie-a', 'bill-1']);
    expect(ids(await pageOfRuns(db.pool, { trigger: 'ticket:OPS-1', limit: 50 }))).toEqual(['bill-1', 'mail-1']);
    expect(ids(await pageOfRuns(db.pool, { actor: 'agent:mailer', trigger: 'schedule:nightly', limit: 50 }))).toEqual(['tie-b']);
    const first = await pageOfRuns(db.pool, { actor: 'agent:billing', limit: 1 });
    expect(first).toMatchObject({ next: 'tie-c' });
    expect(ids(await pageOfRuns(db.pool, { actor: 'agent:billing', after: 'tie-c', limit: 5 }))).toEqual(['tie-a', 'bill-1']);
    expect(ids(await pageOfRuns(db.pool, { actor: 'nobody', limit: 5 }))).toEqual([]);
  });

  it('a cursor naming no run answers null (the caller refuses it), never the first page again', async () => {
    expect(await pageOfRuns(db.pool, { after: 'no-such-run', limit: 5 })).toBeNull();
  });

  it("each run's last activity is its last call or its last attempt, whichever came later", async () => {
    const page = await pageOfRuns(db.pool, { limit: 50 });
    const recorded = page?.runs.find((run) => run.runId === 'campaign-winter-2026');
    expect(recorded).toMatchObject({
      actor: 'agent:mailer',
      trigger: 'ticket:OPS-812',
      attempts: 2,
      openedAt: '2026-12-01T09:00:00.000Z',
      lastAttemptAt: '2026-12-01T11:30:00.000Z',
      lastActivityAt: '2026-12-01T11:31:12.000Z',
    });
    expect(page?.runs.find((run) => run.runId === 'mail-1')?.lastActivityAt).toBe('2026-12-02T08:00:00.000Z');
  });
});
