import { randomUUID } from 'node:crypto';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { messagingMigrations } from '../migrations';
import { type Publication, PublicationLog } from './publication-log';

const at = (n: number) => ({ transactionId: BigInt(n), globalPosition: BigInt(n) });
const publication = (streamSequence: number): Publication => ({ streamSequence, eventId: randomUUID(), from: at(streamSequence) });

describe('PublicationLog (real PostgreSQL)', () => {
  let db: TestDatabase;

  beforeEach(async () => {
    db = await createTestDatabase(messagingMigrations);
  });
  afterEach(async () => {
    await db.drop();
  });

  it('lists the records newest first by stream sequence as a number (30 before 8), per stream', async () => {
    const log = new PublicationLog(db.pool, 'S', 60_000);
    for (const sequence of [4, 8, 12, 30, 100]) await log.record(publication(sequence));
    await new PublicationLog(db.pool, 'OTHER', 60_000).record(publication(500));
    expect((await log.newestFirst()).map((p) => p.streamSequence)).toEqual([100, 30, 12, 8, 4]);
  });

  it('keeps what it was given: the event id and the checkpoint the batch started from', async () => {
    const log = new PublicationLog(db.pool, 'S', 60_000);
    const recorded = { streamSequence: 7, eventId: randomUUID(), from: { transactionId: 123_456_789_012n, globalPosition: 42n } };
    await log.record(recorded);
    expect(await log.newestFirst()).toEqual([recorded]);
  });

  it('drops records older than its retention, except the newest', async () => {
    const log = new PublicationLog(db.pool, 'S', 60_000);
    await log.record(publication(10));
    await log.record(publication(20));
    await db.pool.query(`UPDATE onceport.relay_publications SET published_at = now() - interval '1 hour'`);
    await log.record(publication(30));
    expect((await log.newestFirst()).map((p) => p.streamSequence)).toEqual([30]);

    await db.pool.query(`UPDATE onceport.relay_publications SET published_at = now() - interval '1 hour'`);
    expect((await log.newestFirst()).map((p) => p.streamSequence)).toEqual([30]);
  });

  it('forgets everything above an intact sequence', async () => {
    const log = new PublicationLog(db.pool, 'S', 60_000);
    for (const sequence of [4, 8, 12, 30]) await log.record(publication(sequence));
    await log.forgetAbove(8);
    expect((await log.newestFirst()).map((p) => p.streamSequence)).toEqual([8, 4]);
  });
});
