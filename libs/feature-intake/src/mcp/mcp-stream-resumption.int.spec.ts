import { once } from 'node:events';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage, JSONRPCResponse } from '@modelcontextprotocol/sdk/types.js';
import { type TestDatabase, createTestDatabase, waitFor } from '@onceport/event-store/testing';
import { intakeMigrations } from '../intake.migrations';
import { resumeStream } from './mcp-stream-resumption';
import { PgMcpEventStore } from './pg-mcp-event-store';

const TIMING = { pollMs: 20, keepAliveMs: 60_000, followMs: 10_000, unknownIdGraceMs: 5_000 };

/**
 * Resuming a stream from PostgreSQL: what one replica's transport stores, another replica's GET
 * streams — including what is stored after the GET arrived — and the stream ends once complete.
 */
describe('resumeStream (real PostgreSQL, real HTTP)', () => {
  let db: TestDatabase;
  let server: Server;
  let url: string;
  const written: JSONRPCResponse[] = [];
  /** Each look-up of a Last-Event-ID the server made, with the stream it found (undefined: none yet). */
  const lookups: { eventId: string; streamId: string | undefined }[] = [];

  /** The server's store, recording its look-ups. */
  class LookedUpStore extends PgMcpEventStore {
    override async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
      const streamId = await super.getStreamIdForEventId(eventId);
      lookups.push({ eventId, streamId });
      return streamId;
    }
  }
  let timing = TIMING;

  beforeAll(async () => {
    db = await createTestDatabase(intakeMigrations);
    server = createServer((req, res) => {
      const sessionId = String(req.headers['mcp-session-id']);
      void resumeStream(
        res,
        {
          store: new LookedUpStore(db.pool, () => sessionId),
          sessionId,
          lastEventId: String(req.headers['last-event-id']),
          onResponseWritten: (r) => written.push(r),
        },
        timing,
      );
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    server?.close();
    await db?.drop();
  });
  beforeEach(() => {
    written.length = 0;
    timing = TIMING;
  });

  /** What the transport of a POST on "another replica" stores: the priming event first, then messages. */
  function postStream(sessionId: string, requestIds: readonly (string | number)[]) {
    const store = new PgMcpEventStore(db.pool, () => sessionId, requestIds);
    const streamId = `stream-${Math.random()}`;
    return {
      prime: () => store.storeEvent(streamId, {} as JSONRPCMessage),
      store: (message: JSONRPCMessage) => store.storeEvent(streamId, message),
      replay: (after: string) => {
        const sent: string[] = [];
        return store.replayEventsAfter(after, { send: async (id) => void sent.push(id) }).then(() => sent);
      },
    };
  }
  const result = (id: number | string, text: string): JSONRPCMessage => ({
    jsonrpc: '2.0',
    id,
    result: { content: [{ type: 'text', text }] },
  });

  async function get(sessionId: string, lastEventId: string): Promise<{ status: number; ids: string[]; data: unknown[]; ms: number }> {
    const started = Date.now();
    const response = await fetch(url, {
      headers: { 'mcp-session-id': sessionId, 'last-event-id': lastEventId, accept: 'text/event-stream' },
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text(); // ends only when the server ends the stream
    const events = text.split('\n\n').filter((e) => e.includes('data:'));
    return {
      status: response.status,
      ids: events.map((e) => /^id: (.*)$/m.exec(e)?.[1] ?? ''),
      data: events.map((e) => JSON.parse(/^data: (.*)$/m.exec(e)?.[1] ?? 'null') as unknown),
      ms: Date.now() - started,
    };
  }

  it('streams the response stored after the GET arrived, then ends; the write is reported', async () => {
    const stream = postStream('s-late', [41]);
    const priming = await stream.prime();
    setTimeout(() => void stream.store(result(41, 'done')), 300);
    const resumed = await get('s-late', priming);
    expect(resumed.status).toBe(200);
    expect(resumed.data).toEqual([result(41, 'done')]);
    expect(Number(resumed.ids[0])).toBeGreaterThan(Number(priming));
    expect(resumed.ms).toBeGreaterThanOrEqual(280);
    expect(written).toEqual([result(41, 'done')]);
  });

  it('replays what was stored before the GET, and never sends the priming event', async () => {
    const stream = postStream('s-early', ['a']);
    const priming = await stream.prime();
    const notification: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } };
    const progressId = await stream.store(notification);
    await stream.store(result('a', 'done'));
    expect((await get('s-early', priming)).data).toEqual([notification, result('a', 'done')]);
    expect((await get('s-early', progressId)).data).toEqual([result('a', 'done')]);
    expect(await stream.replay(priming)).toHaveLength(2); // the SDK's replay skips the priming event too
  });

  it('resumed from its last event, a complete stream ends at once with nothing', async () => {
    const stream = postStream('s-done', [1]);
    await stream.prime();
    const last = await stream.store(result(1, 'done'));
    const resumed = await get('s-done', last);
    expect(resumed).toMatchObject({ status: 200, data: [] });
    expect(resumed.ms).toBeLessThan(TIMING.followMs - 1_000); // ended, not followed until the follow time ran out
  });

  it('a batch stream ends only once every request it carried has its response', async () => {
    const stream = postStream('s-batch', [1, 2]);
    const priming = await stream.prime();
    await stream.store(result(1, 'one'));
    setTimeout(() => void stream.store(result(2, 'two')), 300);
    const resumed = await get('s-batch', priming);
    expect(resumed.data).toEqual([result(1, 'one'), result(2, 'two')]);
    expect(resumed.ms).toBeGreaterThanOrEqual(280);
  });

  it('a stream that gets no answer ends when the follow time is over (the client resumes again)', async () => {
    timing = { ...TIMING, followMs: 300 };
    const stream = postStream('s-silent', [9]);
    const priming = await stream.prime();
    const resumed = await get('s-silent', priming);
    expect(resumed).toMatchObject({ status: 200, data: [] });
    expect(resumed.ms).toBeGreaterThanOrEqual(280);
  });

  it('refuses an event id of another session with 400 after the grace for one not committed yet, and one that is not an event id at once', async () => {
    timing = { ...TIMING, unknownIdGraceMs: 200 };
    const stream = postStream('s-owner', [1]);
    const priming = await stream.prime();
    expect((await get('s-intruder', priming)).status).toBe(400);
    expect(lookups.filter((lookup) => lookup.eventId === priming).length).toBeGreaterThan(1); // looked again within the grace
    timing = { ...TIMING, unknownIdGraceMs: 60_000 }; // a grace no test waits out
    for (const notAnId of ['99999999999999999999999', 'abc', '-1']) expect((await get('s-owner', notAnId)).status).toBe(400);
  });

  it('waits for an event sent before its row committed: the client may ask for it first', async () => {
    const stream = postStream('s-ahead', [7]);
    await stream.prime(); // the first block of ids is fetched
    const locker = await db.pool.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE onceport.mcp_stream_events IN EXCLUSIVE MODE'); // inserts wait, reads go on
    let resumed: Promise<Awaited<ReturnType<typeof get>>>;
    try {
      const priming = await stream.prime();
      await stream.store(result(7, 'done'));
      resumed = get('s-ahead', priming);
      // The server looked for the id while its row could not commit yet, and did not refuse it.
      await waitFor(
        () => lookups.some((lookup) => lookup.eventId === priming && lookup.streamId === undefined),
        10_000,
        'a look-up before the commit',
      );
    } finally {
      await locker.query('COMMIT');
      locker.release();
    }
    expect(await resumed).toMatchObject({ status: 200, data: [result(7, 'done')] });
  });
});
