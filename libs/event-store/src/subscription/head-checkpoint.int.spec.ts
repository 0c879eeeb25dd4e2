import { setTimeout as sleep } from 'node:timers/promises';
import { PostgresEventStore } from '../postgres-event-store';
import { type TestDatabase, createTestDatabase, testEvent } from '../testing';
import { headCheckpoint } from './head-checkpoint';

describe('headCheckpoint (real PostgreSQL)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it('is the newest event by number, not by its text (position 12 is newer than 9)', async () => {
    const store = new PostgresEventStore(db.pool);
    // One append, one transaction: the twelve events differ only by position.
    await store.append(
      'many',
      Array.from({ length: 12 }, (_, i) => testEvent(`Step${i + 1}`)),
      { expectedVersion: 0 },
    );
    const newest = (await store.readStream('many')).at(-1)!;
    expect(newest.globalPosition).toBeGreaterThanOrEqual(12n);

    // Until every older transaction of the (shared) cluster has ended, the append is not in the head yet.
    const deadline = Date.now() + 10_000;
    let head = await headCheckpoint(db.pool);
    while (head.transactionId < newest.transactionId && Date.now() < deadline) {
      await sleep(10);
      head = await headCheckpoint(db.pool);
    }

    expect(head).toEqual({ transactionId: newest.transactionId, globalPosition: newest.globalPosition });
  });
});
