import { IllegalTransitionError } from '@onceport/domain';
import { EXECUTION_ID, acceptCommand } from '@onceport/domain/testing';
import { PostgresEventStore } from '../postgres-event-store';
import { type TestDatabase, createTestDatabase } from '../testing';
import { CommandHandler } from './command-handler';
import { executionStream } from './streams/execution-stream';

describe('CommandHandler on an execution stream (real PostgreSQL)', () => {
  let db: TestDatabase;
  let repository: CommandHandler;
  const execution = executionStream(EXECUTION_ID);
  const context = { causationId: 'test' };

  beforeEach(async () => {
    db = await createTestDatabase();
    repository = new CommandHandler(new PostgresEventStore(db.pool));
    await repository.handle(execution, () => acceptCommand({}, 0), context);
    await repository.handle(
      execution,
      (_, now) => ({ type: 'AuthorizeExecution', data: { basis: 'policy', policyVersion: 'p1' }, metadata: { now } }),
      context,
    );
  });
  afterEach(() => db.drop());

  it('folds what it appended: accepted, then authorized, at version 2', async () => {
    const loaded = await repository.load(execution);
    expect(loaded.state.status).toBe('authorized');
    expect(loaded.version).toBe(2);
    expect(loaded.events.map((e) => e.metadata.correlationId)).toEqual([EXECUTION_ID, EXECUTION_ID]);
  });

  it("reads only what is new since its last fold, and sees what another process's repository appended", async () => {
    const store = new PostgresEventStore(db.pool);
    const reads: number[] = [];
    const readStream = store.readStream.bind(store);
    store.readStream = (streamId: string, fromVersion?: number) => {
      reads.push(fromVersion ?? 1);
      return readStream(streamId, fromVersion);
    };
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
});
