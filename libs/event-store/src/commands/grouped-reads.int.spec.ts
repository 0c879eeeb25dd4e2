import { DatabaseError } from 'pg';
import { PostgresEventStore } from '../postgres-event-store';
import { type TestDatabase, createTestDatabase, recordStreamReads, testEvent } from '../testing';
import { GroupedReads } from './grouped-reads';

describe('GroupedReads (real PostgreSQL)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;

  beforeEach(async () => {
    db = await createTestDatabase();
    store = new PostgresEventStore(db.pool);
    for (const streamId of ['a', 'b', 'c']) await store.append(streamId, [testEvent(), testEvent(), testEvent()], { expectedVersion: 0 });
  });
  afterEach(() => db.drop());

  const versionsOf = (read: Map<string, { streamVersion: number }[]>) =>
    Object.fromEntries([...read].map(([streamId, events]) => [streamId, events.map((event) => event.streamVersion)]));

  it('sends a lone read at once and the reads that arrive meanwhile in one statement, each from its own version', async () => {
    const reads = recordStreamReads(store);
    const grouped = new GroupedReads(store);
    const results = await Promise.all([
      grouped.read([{ streamId: 'a', fromVersion: 1 }]),
      grouped.read([
        { streamId: 'b', fromVersion: 2 },
        { streamId: 'missing', fromVersion: 1 },
      ]),
      grouped.read([{ streamId: 'b', fromVersion: 3 }]), // the same stream as the one before, from further on
      grouped.read([{ streamId: 'c', fromVersion: 4 }]),
    ]);

    expect(results.map(versionsOf)).toEqual([{ a: [1, 2, 3] }, { b: [2, 3], missing: [] }, { b: [3] }, { c: [] }]);
    expect(reads).toEqual([['a'], ['b', 'missing', 'c']]);
  });

  it('a read asked while one of its stream is in flight waits for the next statement: it sees what committed before it was asked', async () => {
    const readStream = store.readStream.bind(store);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let ran!: () => void;
    const firstRan = new Promise<void>((resolve) => (ran = resolve));
    let calls = 0;
    // The first read's statement runs at once, and its answer is held back until the test lets it go.
    store.readStream = async (streamId, fromVersion) => {
      const events = await readStream(streamId, fromVersion);
      if (++calls === 1) {
        ran();
        await held;
      }
      return events;
    };
    const grouped = new GroupedReads(store);
    const first = grouped.read([{ streamId: 'b', fromVersion: 1 }]);
    await firstRan;
    await store.append('b', [testEvent()], { expectedVersion: 3 });
    const second = grouped.read([{ streamId: 'b', fromVersion: 1 }]); // the first is still in flight
    release();

    expect(versionsOf(await first)).toEqual({ b: [1, 2, 3] });
    expect(versionsOf(await second)).toEqual({ b: [1, 2, 3, 4] });
  });

  it('a group refused for a value goes again in halves and fails no one; a lost connection fails the group at once', async () => {
    const grouped = new GroupedReads(store);
    const readStreams = store.readStreams.bind(store);
    let failure: Error | null = Object.assign(new DatabaseError('invalid byte sequence for encoding "UTF8": 0x00', 0, 'error'), {
      code: '22021',
    });
    let groupsTried = 0;
    store.readStreams = (wanted) => {
      if (wanted.length > 1) groupsTried += 1;
      const refusing = wanted.length > 2 ? failure : null;
      return refusing ? Promise.reject(refusing) : readStreams(wanted);
    };
    // The first alone, while the other two queue: they go together, three streams in one read.
    const threeReads = (reads: GroupedReads) => [
      reads.read([{ streamId: 'a', fromVersion: 3 }]),
      reads.read([
        { streamId: 'a', fromVersion: 3 },
        { streamId: 'b', fromVersion: 3 },
      ]),
      reads.read([{ streamId: 'c', fromVersion: 3 }]),
    ];
    const results = await Promise.all(threeReads(grouped));
    expect(results.map(versionsOf)).toEqual([{ a: [3] }, { a: [3], b: [3] }, { c: [3] }]);
    expect(groupsTried).toBe(2); // the group of three streams, then its halves: a and b together, c alone

    failure = new Error('Connection terminated unexpectedly');
    groupsTried = 0;
    const lost = await Promise.allSettled(threeReads(new GroupedReads(store)));
    expect(lost.map((settled) => settled.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(groupsTried).toBe(1);
  });
});
