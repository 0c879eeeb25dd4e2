import { setTimeout as sleep } from 'node:timers/promises';
import type { Queryable } from '@onceport/event-store';
import { createTestDatabase, type TestDatabase } from '@onceport/event-store/testing';
import { Client } from 'pg';
import { intakeMigrations } from '../intake.migrations';
import { STREAM_EVENT_ID_BLOCK } from './mcp-stream-event-ids';
import { McpStreamEventWrites } from './mcp-stream-event-writes';
import { MCP_STREAM_CHANNEL } from './mcp-stream-notices';

describe('McpStreamEventWrites (real PostgreSQL)', () => {
  let db: TestDatabase;
  let statements: string[];
  let counted: Queryable;

  beforeAll(async () => {
    db = await createTestDatabase(intakeMigrations);
    counted = {
      query: (text, values) => {
        statements.push(text);
        return db.pool.query(text, values);
      },
    };
  });
  beforeEach(() => {
    statements = [];
  });
  afterAll(() => db.drop());

  const stored = async (ids: readonly string[]) =>
    (
      await db.pool.query<{ event_id: string; stream_id: string; session_id: string; message: { n: number } }>(
        'SELECT event_id::text AS event_id, stream_id, session_id, message FROM onceport.mcp_stream_events WHERE event_id = ANY($1::bigint[]) ORDER BY event_id',
        [ids],
      )
    ).rows;

  it('stores a burst in two statements, each event under its own id, in the order asked within each stream', async () => {
    const writes = new McpStreamEventWrites(counted);
    const asked = Array.from({ length: 50 }, (_, n) => ({
      streamId: `stream-${n % 5}`,
      sessionId: `session-${n % 3}`,
      message: JSON.stringify({ n }),
    }));

    const ids = await Promise.all(asked.map((event) => writes.store(event)));

    // The first alone, at once; the 49 that arrived while it ran, together.
    expect(statements).toHaveLength(2);
    expect(new Set(ids).size).toBe(50);
    const rows = await stored(ids);
    const byId = new Map(rows.map((row) => [row.event_id, row]));
    ids.forEach((id, n) => {
      expect(byId.get(id)).toMatchObject({ stream_id: `stream-${n % 5}`, session_id: `session-${n % 3}`, message: { n } });
    });
    for (let stream = 0; stream < 5; stream++) {
      const ofStream = ids.filter((_, n) => n % 5 === stream).map(BigInt);
      expect(ofStream).toEqual([...ofStream].sort((a, b) => (a < b ? -1 : 1)));
    }
  });

  it('settledFor waits for one session’s writes only, and no longer than it is told', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const gated: Queryable = {
      query: async (text, values) => {
        await gate; // the write hangs until the test opens it
        return db.pool.query(text, values);
      },
    };
    const writes = new McpStreamEventWrites(gated);
    const write = writes.store({ streamId: 'gated-stream', sessionId: 'gated-session', message: JSON.stringify({ n: 1 }) });

    await writes.settledFor('another-session', 60_000); // nothing of it in flight: at once, though the gate is shut
    await writes.settledFor('gated-session', 20); // shut: given up after its 20 ms
    const waited = writes.settledFor('gated-session', 60_000);
    open();
    await waited;
    const id = await write;
    expect(await stored([id])).toHaveLength(1); // settled means committed
  });

  it('fails only the caller whose event the database refuses; the others of its batch are stored', async () => {
    const writes = new McpStreamEventWrites(counted);
    const first = writes.store({ streamId: 's', sessionId: 'x', message: JSON.stringify({ n: 0 }) });
    // jsonb refuses a NUL character: the batch it travels in fails, then each event is written alone.
    const later = [1, 2, 3].map((n) =>
      writes
        .store({ streamId: 's', sessionId: 'x', message: JSON.stringify(n === 2 ? { n, text: 'a\u0000b' } : { n }) })
        .catch((error: Error) => error),
    );

    await first;
    const [one, two, three] = await Promise.all(later);

    expect(two).toBeInstanceOf(Error);
    expect((two as Error).message).toMatch(/unsupported Unicode escape sequence/);
    expect((await stored([one as string, three as string])).map((row) => row.message)).toEqual([{ n: 1 }, { n: 3 }]);
  });

  it('sends the resumption notice of each session whose event it stored, at the commit', async () => {
    const listener = new Client({ connectionString: db.url });
    await listener.connect();
    const heard = new Set<string>();
    listener.on('notification', (notice) => {
      if (notice.channel === MCP_STREAM_CHANNEL && notice.payload) heard.add(notice.payload);
    });
    await listener.query(`LISTEN ${MCP_STREAM_CHANNEL}`);
    try {
      const writes = new McpStreamEventWrites(db.pool);
      await Promise.all(
        ['a', 'b', 'c', 'a'].map((session) => writes.store({ streamId: 's', sessionId: `session-${session}`, message: '{}' })),
      );

      const deadline = Date.now() + 10_000;
      while (heard.size < 3 && Date.now() < deadline) await sleep(10);
      expect([...heard].sort()).toEqual(['session-a', 'session-b', 'session-c']);
    } finally {
      await listener.end();
    }
  });

  describe('ahead of the commit (a request stream)', () => {
    /** Holds every insert into the table until the returned release is called (reads go on). */
    async function holdInserts(): Promise<() => Promise<void>> {
      const locker = await db.pool.connect();
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE onceport.mcp_stream_events IN EXCLUSIVE MODE');
      return async () => {
        await locker.query('COMMIT');
        locker.release();
      };
    }

    it('gives the id before the row commits, then commits it under that id, in the order asked', async () => {
      const writes = new McpStreamEventWrites(db.pool);
      await writes.storeAhead({ streamId: 'warm', sessionId: 'w', message: '{}' }); // the first block is fetched
      const release = await holdInserts();
      const ids = await Promise.all(
        [1, 2, 3].map((n) => writes.storeAhead({ streamId: 'ahead', sessionId: 'x', message: JSON.stringify({ n }) })),
      );
      expect((await stored(ids)).length).toBe(0); // known, sent, not yet committed

      await release();
      await writes.settled();

      expect((await stored(ids)).map((row) => [row.event_id, row.message])).toEqual(ids.map((id, n) => [id, { n: n + 1 }]));
      expect(ids.map(BigInt)).toEqual([...ids.map(BigInt)].sort((a, b) => (a < b ? -1 : 1)));
    });

    it('never gives an id twice: two processes and the column itself draw apart, across block ends', async () => {
      // Blocks of 8 for this test: 200 ids each cross many block ends.
      await db.pool.query(`ALTER TABLE onceport.mcp_stream_events ALTER COLUMN event_id SET INCREMENT BY 8`);
      try {
        const [one, two] = [new McpStreamEventWrites(db.pool), new McpStreamEventWrites(db.pool)];
        const event = (n: number) => ({ streamId: `blocks-${n % 2}`, sessionId: 'y', message: JSON.stringify({ n }) });
        const [ahead1, ahead2, drawn] = await Promise.all([
          Promise.all(Array.from({ length: 200 }, (_, n) => one.storeAhead(event(n)))),
          Promise.all(Array.from({ length: 200 }, (_, n) => two.storeAhead(event(n)))),
          Promise.all(Array.from({ length: 50 }, (_, n) => one.store(event(n)))),
        ]);
        await Promise.all([one.settled(), two.settled()]);

        const all = [...ahead1, ...ahead2, ...drawn];
        expect(new Set(all).size).toBe(450);
        expect((await stored(all)).length).toBe(450);
        for (const ids of [ahead1, ahead2]) expect(ids.map(BigInt)).toEqual([...ids.map(BigInt)].sort((a, b) => (a < b ? -1 : 1)));
      } finally {
        await db.pool.query(`ALTER TABLE onceport.mcp_stream_events ALTER COLUMN event_id SET INCREMENT BY ${STREAM_EVENT_ID_BLOCK}`);
      }
    });

    it('reports an event it could not store to the caller of the writes, and stores the others', async () => {
      const lost: string[] = [];
      const writes = new McpStreamEventWrites(db.pool, (error) => lost.push(String(error)));
      const ids = await Promise.all(
        [1, 2, 3].map((n) =>
          writes.storeAhead({ streamId: 'lossy', sessionId: 'z', message: JSON.stringify(n === 2 ? { text: 'a\u0000b' } : { n }) }),
        ),
      );
      await writes.settled();

      expect(lost).toEqual([expect.stringMatching(/unsupported Unicode escape sequence/)]);
      expect((await stored(ids)).map((row) => row.message)).toEqual([{ n: 1 }, { n: 3 }]);
    });
  });
});
