import type { QueryResult, QueryResultRow } from 'pg';
import { PostgresEventStore } from '../postgres-event-store';
import type { Queryable } from '../queryable';
import { type TestDatabase, createTestDatabase, testEvent, waitFor } from '../testing';
import { CHECKPOINT_START, type Checkpoint } from './checkpoint';
import { headCheckpoint } from './head-checkpoint';
import { SharedTailReads } from './shared-tail-reads';

/** The pool, counting the queries sent through it; while `held`, a query waits before it is sent on. */
class CountingDb implements Queryable {
  sent = 0;
  held: Promise<void> | null = null;

  constructor(private readonly db: Queryable) {}

  async query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>> {
    this.sent++;
    await this.held;
    return this.db.query<R>(text, values);
  }
}

describe('SharedTailReads (real PostgreSQL)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  beforeAll(async () => {
    db = await createTestDatabase();
    store = new PostgresEventStore(db.pool);
  });
  afterAll(() => db.drop());

  /** Appends and waits until every reader can see it (an open transaction elsewhere in the shared cluster holds the tail back). */
  async function appendVisible(stream: string, types: string[]): Promise<Checkpoint> {
    await store.append(
      stream,
      types.map((type) => testEvent(type)),
      { expectedVersion: 0 },
    );
    const last = (await store.readStream(stream)).at(-1)!;
    await waitFor(async () => (await headCheckpoint(db.pool)).globalPosition >= last.globalPosition);
    return { transactionId: last.transactionId, globalPosition: last.globalPosition };
  }

  it('answers readers asking from one place in one turn with one query, each up to its own limit', async () => {
    await appendVisible('shared-one-turn', ['A', 'B', 'C']);
    const counting = new CountingDb(db.pool);
    const reads = new SharedTailReads(counting);

    const [few, all, again] = await Promise.all([
      reads.read(CHECKPOINT_START, 2),
      reads.read(CHECKPOINT_START, 10),
      reads.read(CHECKPOINT_START, 10),
    ]);

    expect(counting.sent).toBe(1);
    expect(few.events.map((e) => e.type)).toEqual(['A', 'B']);
    expect(few.more).toBe(true);
    expect(all.events.map((e) => e.type)).toEqual(['A', 'B', 'C']);
    expect(all.more).toBe(false);
    expect(again.events.map((e) => e.type)).toEqual(['A', 'B', 'C']);
  });

  it('reads apart for readers at different places', async () => {
    const head = await appendVisible('shared-apart', ['D']);
    const counting = new CountingDb(db.pool);
    const reads = new SharedTailReads(counting);

    const [fromStart, fromHead] = await Promise.all([reads.read(CHECKPOINT_START, 100), reads.read(head, 100)]);

    expect(counting.sent).toBe(2);
    expect(fromStart.events.map((e) => e.type)).toContain('D');
    expect(fromHead.events).toEqual([]);
  });

  it('gives a request made once the read was sent a read of its own, which sees what committed meanwhile', async () => {
    const head = await headCheckpoint(db.pool);
    const counting = new CountingDb(db.pool);
    const reads = new SharedTailReads(counting);
    let release!: () => void;
    counting.held = new Promise((resolve) => (release = resolve));

    const first = reads.read(head, 100);
    await waitFor(() => counting.sent === 1); // sent, and held in flight
    await appendVisible('shared-late', ['Late']);
    const late = reads.read(head, 100);
    await waitFor(() => counting.sent === 2);
    release();

    expect((await late).events.map((e) => e.type)).toEqual(['Late']);
    await first;
  });
});
