import { DuplicateEventError, WrongExpectedVersionError } from '../errors';
import { PostgresEventStore } from '../postgres-event-store';
import { type TestDatabase, createTestDatabase, testEvent } from '../testing';
import { GroupedAppends } from './grouped-appends';

describe('GroupedAppends (real PostgreSQL)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;

  beforeEach(async () => {
    db = await createTestDatabase();
    store = new PostgresEventStore(db.pool);
  });
  afterEach(() => db.drop());

  const rowsOf = async (streamIds: readonly string[]) =>
    (
      await db.pool.query<{ stream_id: string; stream_version: number; event_id: string; transaction_id: string }>(
        'SELECT stream_id, stream_version, event_id::text, transaction_id::text FROM onceport.events WHERE stream_id = ANY($1) ORDER BY stream_id, stream_version',
        [streamIds],
      )
    ).rows;

  it('sends a lone append at once and the appends that arrive meanwhile in one statement, each at its own version', async () => {
    const grouped = new GroupedAppends(store);
    const streams = ['g-a', 'g-b', 'g-c', 'g-d', 'g-e'];
    await store.append('g-c', [testEvent()], { expectedVersion: 0 });
    const versions = await Promise.all(streams.map((id) => grouped.append(id, [testEvent(), testEvent()], id === 'g-c' ? 1 : 0)));

    expect(versions).toEqual([2, 2, 3, 2, 2]);
    const rows = await rowsOf(streams);
    expect(rows.map((row) => [row.stream_id, row.stream_version])).toEqual([
      ['g-a', 1],
      ['g-a', 2],
      ['g-b', 1],
      ['g-b', 2],
      ['g-c', 1],
      ['g-c', 2],
      ['g-c', 3],
      ['g-d', 1],
      ['g-d', 2],
      ['g-e', 1],
      ['g-e', 2],
    ]);
    // The first went alone; the four that arrived while it was in flight committed together.
    const written = rows.filter((row) => !(row.stream_id === 'g-c' && row.stream_version === 1));
    expect(new Set(written.map((row) => row.transaction_id)).size).toBe(2);
  });

  it('a refused append fails only its own caller: the rest of its group is written, each alone', async () => {
    const grouped = new GroupedAppends(store);
    const taken = testEvent();
    await store.append('r-taken', [taken], { expectedVersion: 0 });
    await store.append('r-moved', [testEvent()], { expectedVersion: 0 });
    const outcomes = await Promise.allSettled([
      grouped.append('r-first', [testEvent()], 0), // alone, while the others queue
      grouped.append('r-duplicate', [{ ...testEvent(), eventId: taken.eventId }], 0),
      grouped.append('r-moved', [testEvent()], 0),
      grouped.append('r-fine', [testEvent()], 0),
    ]);

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateEventError);
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersionError);
    expect((await rowsOf(['r-first', 'r-duplicate', 'r-moved', 'r-fine'])).map((row) => [row.stream_id, row.stream_version])).toEqual([
      ['r-fine', 1],
      ['r-first', 1],
      ['r-moved', 1],
    ]);
  });

  it('two appends of one stream in a group go alone, in turn: the second sees the first’s version', async () => {
    const grouped = new GroupedAppends(store);
    const outcomes = await Promise.allSettled([
      grouped.append('t-first', [testEvent()], 0), // alone, while the others queue
      grouped.append('t-twice', [testEvent()], 0),
      grouped.append('t-other', [testEvent()], 0),
      grouped.append('t-twice', [testEvent()], 1), // follows the one before it
      grouped.append('t-twice', [testEvent()], 0), // decided on the same version as the first: loses
    ]);

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
    expect((outcomes[4] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersionError);
    expect((await rowsOf(['t-first', 't-twice', 't-other'])).map((row) => [row.stream_id, row.stream_version])).toEqual([
      ['t-first', 1],
      ['t-other', 1],
      ['t-twice', 1],
      ['t-twice', 2],
    ]);
  });
});
