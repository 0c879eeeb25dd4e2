import { IllegalTransitionError } from '@onceport/domain';
import { EXECUTION_ID, acceptCommand } from '@onceport/domain/testing';
import { PostgresEventStore } from '../postgres-event-store';
import { type TestDatabase, createTestDatabase, recordStatements, waitFor } from '../testing';
import { AppendGuardRefusedError } from '../errors';
import { type CommandFor, CommandHandler } from './command-handler';
import { intentStream } from './streams/intent-stream';
import { executionStream } from './streams/execution-stream';
import { vaultStream } from './streams/vault-stream';

describe('CommandHandler on an execution stream (real PostgreSQL)', () => {
  let db: TestDatabase;
  let repository: CommandHandler;
  const execution = executionStream(EXECUTION_ID);
  const context = { causationId: 'test' };

  /** A store that records where each stream read starts (the version asked from). */
  const storeCountingReads = (): { store: PostgresEventStore; reads: number[] } => {
    const store = new PostgresEventStore(db.pool);
    const reads: number[] = [];
    const readStream = store.readStream.bind(store);
    store.readStream = (streamId: string, fromVersion?: number) => {
      reads.push(fromVersion ?? 1);
      return readStream(streamId, fromVersion);
    };
    return { store, reads };
  };

  const authorize: CommandFor<typeof execution> = (_, now) => ({
    type: 'AuthorizeExecution',
    data: { basis: 'policy', policyVersion: 'p1' },
    metadata: { now },
  });

  beforeEach(async () => {
    db = await createTestDatabase();
    repository = new CommandHandler(new PostgresEventStore(db.pool));
    await repository.handle(execution, () => acceptCommand({}, 0), context);
    await repository.handle(execution, authorize, context);
  });
  afterEach(() => db.drop());

  it('folds what it appended: accepted, then authorized, at version 2', async () => {
    const loaded = await repository.load(execution);
    expect(loaded.state.status).toBe('authorized');
    expect(loaded.version).toBe(2);
    expect(loaded.events.map((e) => e.metadata.correlationId)).toEqual([EXECUTION_ID, EXECUTION_ID]);
  });

  it("reads only what is new since its last fold, and sees what another process's repository appended", async () => {
    const { store, reads } = storeCountingReads();
    const watching = new CommandHandler(store);
    expect((await watching.load(execution)).version).toBe(2);

    const elsewhere = new CommandHandler(new PostgresEventStore(db.pool));
    await elsewhere.handle(
      execution,
      (_, now) => ({ type: 'StartDispatch', data: { dispatcherId: 'd-1', leaseMs: 30_000 }, metadata: { now } }),
      context,
    );
    const after = await watching.load(execution);
    expect(after.state.status).toBe('dispatched');
    expect(after.version).toBe(3);
    expect(after.events.map((e) => e.type)).toEqual(['ExecutionAccepted', 'ExecutionAuthorized', 'DispatchStarted']);
    expect(await watching.load(execution)).toEqual(after);
    expect(reads).toEqual([1, 3, 4]);
    // A fresh fold from the whole stream agrees with the incremental one.
    expect(await new CommandHandler(new PostgresEventStore(db.pool)).load(execution)).toEqual(after);
  });

  it('loads several streams in one read, each as its own load would, and a cached one from what is new', async () => {
    const store = new PostgresEventStore(db.pool);
    const asked: Array<Array<[string, number]>> = [];
    const readStreams = store.readStreams.bind(store);
    store.readStreams = (wanted) => {
      asked.push(wanted.map((w) => [w.streamId, w.fromVersion]));
      return readStreams(wanted);
    };
    store.readStream = () => Promise.reject(new Error('loadAll reads every stream in its one read'));
    const loading = new CommandHandler(store);
    const other = executionStream('exec_01HZZZZZZZZZZZZZZZZZZZZZZZ');
    const vault = vaultStream();

    const [first, empty, vaultFold] = await loading.loadAll([execution, other, vault]);
    const fresh = new CommandHandler(new PostgresEventStore(db.pool));
    expect(first).toEqual(await fresh.load(execution));
    expect(empty).toEqual(await fresh.load(other));
    expect(vaultFold).toEqual(await fresh.load(vault));
    expect(first.version).toBe(2);

    await new CommandHandler(new PostgresEventStore(db.pool)).handle(
      execution,
      (_, now) => ({ type: 'StartDispatch', data: { dispatcherId: 'd-1', leaseMs: 30_000 }, metadata: { now } }),
      context,
    );
    const [after] = await loading.loadAll([execution, vault]);

    expect(after.state.status).toBe('dispatched');
    expect(after).toEqual(await fresh.load(execution));
    // The execution (a cached kind) from the version after its fold; the vault (not cached) whole.
    expect(asked).toEqual([
      [
        [execution.id, 1],
        [other.id, 1],
        [vault.id, 1],
      ],
      [
        [execution.id, 3],
        [vault.id, 1],
      ],
    ]);
  });

  it('lets exactly one of ten concurrent dispatchers start the dispatch; the others are refused by the decider', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        repository.handle(
          execution,
          (_loaded, now) => ({ type: 'StartDispatch', data: { dispatcherId: `d${i}`, leaseMs: 30_000 }, metadata: { now } }),
          context,
        ),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(IllegalTransitionError);
    const loaded = await repository.load(execution);
    expect(loaded.events.filter((e) => e.type === 'DispatchStarted')).toHaveLength(1);
  });

  it('calls an asynchronous command function again after a conflict, so what it read is as fresh as the state it decides on', async () => {
    let calls = 0;
    const handled = await repository.handle(
      execution,
      async (loaded, now) => {
        calls++;
        // The first time, another writer commits while this one is still reading.
        if (calls === 1)
          await repository.handle(
            execution,
            (_l, at) => ({ type: 'StartDispatch', data: { dispatcherId: 'other', leaseMs: 30_000 }, metadata: { now: at } }),
            context,
          );
        return loaded.state.status === 'dispatched'
          ? null
          : { type: 'StartDispatch', data: { dispatcherId: 'me', leaseMs: 30_000 }, metadata: { now } };
      },
      context,
    );
    expect(calls).toBe(2);
    expect(handled.appended).toEqual([]);
    expect(handled.state.status).toBe('dispatched');
  });

  it('appends nothing when the command function declines', async () => {
    const handled = await repository.handle(execution, () => null, context);
    expect(handled.appended).toEqual([]);
    expect(handled.version).toBe(2);
  });

  it('appends a herd of commuting commands in a few shared commits, each decided on the ones before it', async () => {
    const attach = (i: number) =>
      repository.handle(
        execution,
        (_loaded, now) => ({
          type: 'AttachRetry',
          data: { correlation: { transport: 'rest', requestId: `retry-${i}` }, agentProcess: null, clientIdempotencyKey: null },
          metadata: { now },
        }),
        { causationId: `retry-${i}` },
        { appendAnywhere: true },
      );
    const handled = await Promise.all(Array.from({ length: 200 }, (_, i) => attach(i)));

    const attached = (await repository.load(execution)).events.filter((e) => e.type === 'RetryAttached');
    expect(attached).toHaveLength(200);
    expect(new Set(attached.map((e) => e.metadata.causationId)).size).toBe(200);
    // Each caller is told the version just after its own event.
    expect(new Set(handled.map((h) => h.version)).size).toBe(200);
    for (const h of handled) expect(h.events[h.version - 1]?.metadata.eventId).toBe(h.appended[0]?.metadata.eventId);
    const commits = await db.pool.query<{ n: number }>(
      "SELECT count(DISTINCT transaction_id)::int AS n FROM onceport.events WHERE stream_id = $1 AND event_type = 'RetryAttached'",
      [execution.id],
    );
    expect(commits.rows[0]?.n).toBeLessThan(20);
  });

  it('appends a commuting command where the stream ended when it was loaded, without a stream lock; behind another writer, at the end', async () => {
    const statements: string[] = [];
    /** Runs once, just before this handler's next insert: another writer taking the stream's next version. */
    let beforeInsert: (() => Promise<unknown>) | null = null;
    const counted = new CommandHandler(
      new PostgresEventStore({
        query: async (text: string, values?: unknown[]) => {
          statements.push(text.trim().split(/\s+/).slice(0, 2).join(' '));
          if (beforeInsert && text.trim().startsWith('INSERT INTO onceport.events')) {
            const racing = beforeInsert;
            beforeInsert = null;
            await racing();
          }
          return db.pool.query(text, values);
        },
      } as unknown as typeof db.pool),
    );
    const attach = (handler: CommandHandler, requestId: string) =>
      handler.handle(
        execution,
        (_loaded, now) => ({
          type: 'AttachRetry',
          data: { correlation: { transport: 'rest', requestId }, agentProcess: null, clientIdempotencyKey: null },
          metadata: { now },
        }),
        { causationId: requestId },
        { appendAnywhere: true },
      );
    await counted.load(execution);
    statements.length = 0;
    expect((await attach(counted, 'alone')).version).toBe(3);
    // The read of what is new since its fold, and the insert: no transaction, no lock, no max(version).
    expect(statements.filter((text) => !text.startsWith('SELECT pg_notify'))).toEqual(['SELECT global_position::text', 'INSERT INTO']);

    // Another process appends between this one's load and its insert: the insert at the loaded version
    // loses, and the command's event goes to the end, after the other one.
    beforeInsert = () => attach(repository, 'elsewhere');
    statements.length = 0;
    const behind = await attach(counted, 'behind');
    expect(statements).toContain('SELECT pg_advisory_xact_lock(hashtextextended($1,');
    const causes = (await repository.load(execution)).events.map((e) => e.metadata.causationId);
    expect(causes.slice(2)).toEqual(['alone', 'elsewhere', 'behind']);
    expect(behind.appended).toHaveLength(1);
  });

  describe('commuting commands of many streams at once', () => {
    const executions = Array.from({ length: 30 }, (_, i) => executionStream(`${EXECUTION_ID}-${i}`));
    const attach = (handler: CommandHandler, stream: (typeof executions)[number]) =>
      handler.handle(
        stream,
        (_loaded, now) => ({
          type: 'AttachRetry',
          data: { correlation: { transport: 'rest', requestId: `grouped-${stream.id}` }, agentProcess: null, clientIdempotencyKey: null },
          metadata: { now },
        }),
        { causationId: `grouped-${stream.id}` },
        { appendAnywhere: true },
      );
    const attached = async () =>
      (
        await db.pool.query<{ stream_id: string; stream_version: number; transaction_id: string }>(
          "SELECT stream_id, stream_version, transaction_id::text FROM onceport.events WHERE event_type = 'RetryAttached' AND stream_id = ANY($1)",
          [executions.map((stream) => stream.id)],
        )
      ).rows;
    const authorized = async () =>
      (
        await db.pool.query<{ stream_id: string; stream_version: number; transaction_id: string }>(
          "SELECT stream_id, stream_version, transaction_id::text FROM onceport.events WHERE event_type = 'ExecutionAuthorized' AND stream_id = ANY($1)",
          [executions.map((stream) => stream.id)],
        )
      ).rows;
    /** A store whose first grouped statement waits for `race` (another writer) first; it counts the streams it read. */
    class RacedStore extends PostgresEventStore {
      race: (() => Promise<unknown>) | null = null;
      readonly groups: number[] = [];
      streamsRead = 0;
      reads = 0;
      override async readStream(...args: Parameters<PostgresEventStore['readStream']>): ReturnType<PostgresEventStore['readStream']> {
        const events = await super.readStream(...args);
        this.streamsRead += 1;
        this.reads += 1;
        return events;
      }
      override async readStreams(...args: Parameters<PostgresEventStore['readStreams']>): ReturnType<PostgresEventStore['readStreams']> {
        const events = await super.readStreams(...args);
        this.streamsRead += args[0].length;
        this.reads += 1;
        return events;
      }
      /** Awaited by the first write of any kind (and then forgotten). */
      holdFirstWrite: (() => Promise<unknown>) | null = null;
      private async heldWrite(): Promise<void> {
        const hold = this.holdFirstWrite;
        this.holdFirstWrite = null;
        if (hold) await hold();
      }
      override async append(...args: Parameters<PostgresEventStore['append']>): ReturnType<PostgresEventStore['append']> {
        await this.heldWrite();
        return super.append(...args);
      }
      override async appendTogether(...args: Parameters<PostgresEventStore['appendTogether']>): Promise<boolean> {
        await this.heldWrite();
        this.groups.push(args[0].length);
        const race = this.race;
        this.race = null;
        if (race) await race();
        return super.appendTogether(...args);
      }
    }

    /**
     * The first write waits until every command has read its stream and queued its append: how many
     * statements they share must not depend on how the machine's load spreads their reads.
     */
    const holdWritesUntilEveryStreamRead = (store: RacedStore): void => {
      store.holdFirstWrite = async () => {
        await waitFor(() => store.streamsRead >= executions.length, 20_000, 'every stream read');
        await new Promise((resolve) => setImmediate(resolve));
      };
    };

    beforeEach(async () => {
      for (const stream of executions) await repository.handle(stream, () => acceptCommand({}, 0), context);
    });

    it('commits them in a few shared statements, each at its own version', async () => {
      const store = new RacedStore(db.pool);
      holdWritesUntilEveryStreamRead(store);
      const handler = new CommandHandler(store);
      const handled = await Promise.all(executions.map((stream) => attach(handler, stream)));

      const rows = await attached();
      expect(rows).toHaveLength(30);
      expect(new Set(rows.map((row) => row.transaction_id)).size).toBeLessThan(10);
      expect(store.groups.length).toBeGreaterThan(0); // grouped statements ran (a lone append is not one)
      expect(rows.every((row) => row.stream_version === 2)).toBe(true);
      expect(handled.map((h) => h.version)).toEqual(executions.map(() => 2));
    });

    it('commands deciding at their loaded version share reads and statements too, each at its own version', async () => {
      const store = new RacedStore(db.pool);
      holdWritesUntilEveryStreamRead(store);
      const handler = new CommandHandler(store, { cacheSize: 0 }); // every command reads its stream
      const handled = await Promise.all(executions.map((stream) => handler.handle(stream, authorize, context)));

      const rows = await authorized();
      expect(rows).toHaveLength(30);
      expect(rows.every((row) => row.stream_version === 2)).toBe(true);
      expect(new Set(rows.map((row) => row.transaction_id)).size).toBeLessThan(10);
      expect(store.reads).toBeLessThan(10);
      expect(handled.map((h) => [h.version, h.appended.length])).toEqual(executions.map(() => [2, 1]));
    });

    it('a command whose stream moved on before its group was sent decides again: only it retries, the rest of its group keep the version they read', async () => {
      const store = new RacedStore(db.pool);
      holdWritesUntilEveryStreamRead(store);
      const moved = new Set(executions.filter((_, i) => i % 3 === 0).map((stream) => stream.id));
      // Before the first grouped statement, another writer attaches a retry to every third stream.
      store.race = () => Promise.all(executions.filter((stream) => moved.has(stream.id)).map((stream) => attach(repository, stream)));
      const handler = new CommandHandler(store, { cacheSize: 0 });
      let conflicts = 0;
      const handled = await Promise.all(
        executions.map((stream) => handler.handle(stream, authorize, context, { onConflict: () => (conflicts += 1) })),
      );

      expect(store.groups.length).toBeGreaterThan(0);
      const rows = await authorized();
      expect(rows).toHaveLength(30);
      const versionOf = new Map(rows.map((row) => [row.stream_id, row.stream_version]));
      for (const [i, stream] of executions.entries()) expect([i, handled[i]?.version]).toEqual([i, versionOf.get(stream.id)]);
      expect(executions.filter((stream) => !moved.has(stream.id)).map((stream) => versionOf.get(stream.id))).toEqual(Array(20).fill(2));
      // The moved ones authorized after the other writer's event (all but a lone append sent before the race), each after one conflict.
      const decidedAgain = executions.filter((stream) => moved.has(stream.id) && versionOf.get(stream.id) === 3).length;
      expect(decidedAgain).toBeGreaterThanOrEqual(9);
      expect(conflicts).toBe(decidedAgain);
    });

    it('streams that moved on fail only themselves: the group is sent again one by one, theirs go at their end, the others at the version they were read at', async () => {
      const store = new RacedStore(db.pool);
      const handler = new CommandHandler(store);
      const moved = new Set(executions.filter((_, i) => i % 2 === 0).map((stream) => stream.id));
      const attaching = executions.map((stream) => attach(handler, stream));
      // Before the first grouped statement, another writer takes the next version of every other stream.
      store.race = () =>
        Promise.all(executions.filter((stream) => moved.has(stream.id)).map((stream) => repository.handle(stream, authorize, context)));
      const handled = await Promise.all(attaching);

      expect(store.groups.length).toBeGreaterThan(0);
      const rows = await attached();
      expect(rows).toHaveLength(30);
      const versionOf = new Map(rows.map((row) => [row.stream_id, row.stream_version]));
      // Each caller is told where its own event went.
      for (const [i, stream] of executions.entries()) expect([i, handled[i]?.version]).toEqual([i, versionOf.get(stream.id)]);
      // Untouched streams keep the version they were read at, whichever group failed around them.
      expect(executions.filter((stream) => !moved.has(stream.id)).map((stream) => versionOf.get(stream.id))).toEqual(Array(15).fill(2));
      // Moved streams got theirs after the other writer's event (all but a lone append sent before the race).
      expect(executions.filter((stream) => moved.has(stream.id) && versionOf.get(stream.id) === 3).length).toBeGreaterThanOrEqual(14);
    });
  });

  it("commits a command's appends to several streams and its guard in one statement; a refused guard writes nothing", async () => {
    const { pool: countingPool, statements } = recordStatements(db.pool);
    const counted = new CommandHandler(new PostgresEventStore(countingPool), { pool: countingPool });
    await db.pool.query('CREATE TABLE guard_places (place int PRIMARY KEY)');
    const place = (n: number) => ({ text: 'INSERT INTO guard_places VALUES ($1) ON CONFLICT DO NOTHING RETURNING place', values: [n] });
    const intent = (n: number) => intentStream(`hmac-sha256:k1:${String(n).repeat(64)}`, 'agent:a', 'default:agent:a');
    const claim = (now: Date) => ({ type: 'ClaimIntent' as const, data: { executionId: EXECUTION_ID }, metadata: { now } });

    await counted.transact(async (attempt) => {
      const [loaded, claims] = [await attempt.load(execution), await attempt.load(intent(1))];
      attempt.decide(
        execution,
        loaded,
        { type: 'StartDispatch', data: { dispatcherId: 'd-1', leaseMs: 30_000 }, metadata: { now: attempt.now() } },
        context,
      );
      attempt.decide(intent(1), claims, claim(attempt.now()), context);
      attempt.onlyIf(place(1));
    });
    expect(statements.filter((text) => !text.startsWith('SELECT'))).toEqual(['WITH guard']);
    expect((await repository.load(execution)).state.status).toBe('dispatched');
    expect((await repository.load(intent(1))).version).toBe(1);

    const refused = counted.transact(async (attempt) => {
      attempt.decide(intent(2), await attempt.load(intent(2)), claim(attempt.now()), context);
      attempt.onlyIf(place(1));
    });
    await expect(refused).rejects.toBeInstanceOf(AppendGuardRefusedError);
    expect((await repository.load(intent(2))).version).toBe(0);
  });

  it('refuses only the commuting command its decider refuses; the rest of its batch is appended', async () => {
    const deliver = (requestId: string, replay: boolean) =>
      repository.handle(
        execution,
        (_loaded, now) => ({
          type: 'RecordDelivery',
          data: { transport: 'rest', replay, correlation: { transport: 'rest', requestId } },
          metadata: { now },
        }),
        { causationId: requestId },
        { appendAnywhere: true },
      );
    await repository.handle(
      execution,
      (_, now) => ({ type: 'StartDispatch', data: { dispatcherId: 'd', leaseMs: 30_000 }, metadata: { now } }),
      context,
    );
    await repository.handle(
      execution,
      (_, now) => ({ type: 'ObserveOutcome', data: { attempt: 1, targetStatus: 200, succeeded: true, result: null }, metadata: { now } }),
      context,
    );
    // Two first deliveries at once: the second, decided after the first in the same batch, is refused.
    const outcomes = await Promise.allSettled([deliver('a', false), deliver('b', false), deliver('c', true)]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const delivered = (await repository.load(execution)).events.filter((e) => e.type === 'ResultDelivered');
    expect(delivered.map((e) => e.metadata.causationId)).toEqual(['a', 'c']);
  });

  it('shares reads among concurrent loads of one stream, and a load asked after an append still sees it', async () => {
    const store = new PostgresEventStore(db.pool);
    let reads = 0;
    const readStream = store.readStream.bind(store);
    store.readStream = (streamId: string, fromVersion?: number) => {
      reads += 1;
      return readStream(streamId, fromVersion);
    };
    const herd = new CommandHandler(store);
    const loads = await Promise.all(Array.from({ length: 200 }, () => herd.load(execution)));
    expect(loads.every((l) => l.version === 2)).toBe(true);
    expect(reads).toBeLessThanOrEqual(2);

    // A load running when another writer appends; a load asked after the append waits for a read that starts after it.
    reads = 0;
    const running = herd.load(execution);
    await repository.handle(
      execution,
      (_, now) => ({ type: 'StartDispatch', data: { dispatcherId: 'd-2', leaseMs: 30_000 }, metadata: { now } }),
      context,
    );
    const after = await herd.load(execution);
    expect(after.version).toBe(3);
    expect((await running).version).toBeGreaterThanOrEqual(2);
  });

  it('holds the fold of events it is shown from the tail where they continue it exactly; a gap or a repeat changes nothing', async () => {
    const { store, reads } = storeCountingReads();
    const uncounted = new PostgresEventStore(db.pool);
    const follower = new CommandHandler(store);
    const startDispatch = () =>
      repository.handle(
        execution,
        (_, now) => ({ type: 'StartDispatch', data: { dispatcherId: 'd-3', leaseMs: 30_000 }, metadata: { now } }),
        context,
      );
    const [first, second] = await uncounted.readStream(execution.id);
    if (!first || !second) throw new Error('the stream holds two events');

    expect(follower.cachedFold(execution)).toBeNull();
    follower.observe(execution, [second]); // not where the stream begins: nothing to fold onto
    expect(follower.cachedFold(execution)).toBeNull();
    follower.observe(execution, [first, second]);
    const folded = follower.cachedFold(execution);
    expect(folded).toEqual(await new CommandHandler(new PostgresEventStore(db.pool)).load(execution));
    expect(reads).toEqual([]);
    follower.observe(execution, [second]); // a repeat: the fold stays as it was
    expect(follower.cachedFold(execution)).toBe(folded);

    await startDispatch();
    const [third] = await uncounted.readStream(execution.id, 3);
    if (!third) throw new Error('the dispatch was appended');
    follower.observe(execution, [first, second, third]); // the first two are folded already
    const observed = follower.cachedFold(execution);
    expect(observed).toMatchObject({ version: 3, state: { status: 'dispatched' } });
    expect(await follower.load(execution)).toEqual(observed);
    expect(reads).toEqual([4]); // the load read only what might have come after

    // A gap (version 5 without 4) is not folded.
    follower.observe(execution, [{ ...third, streamVersion: 5 }]);
    expect(follower.cachedFold(execution)).toBe(observed);
  });

  it('holds no fold of a kind it does not cache', () => {
    const handler = new CommandHandler(new PostgresEventStore(db.pool));
    expect(handler.cachedFold(intentStream('fp', 'agent:a', 'scope'))).toBeNull();
  });
});
