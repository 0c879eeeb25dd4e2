import { IllegalTransitionError } from '@onceport/domain';
import { EXECUTION_ID, acceptCommand } from '@onceport/domain/testing';
import { PostgresEventStore } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { allMigrations } from '../database';
import { ExecutionRepository } from './execution-repository';

describe('ExecutionRepository (real PostgreSQL)', () => {
  let db: TestDatabase;
  let repository: ExecutionRepository;
  const context = { causationId: 'test' };

  beforeEach(async () => {
    db = await createTestDatabase(allMigrations.filter((m) => !m.id.startsWith('00')));
    repository = new ExecutionRepository(new PostgresEventStore(db.pool));
    await repository.handle(EXECUTION_ID, () => acceptCommand({}, 0), context);
    await repository.handle(EXECUTION_ID, (_, now) => ({ type: 'AuthorizeExecution', data: { basis: 'policy', policyVersion: 'p1' }, metadata: { now } }), context);
  });
  afterEach(() => db.drop());

  it('folds what it appended: accepted, then authorized, at version 2', async () => {
    const loaded = await repository.load(EXECUTION_ID);
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
    const watching = new ExecutionRepository(store);
    expect((await watching.load(EXECUTION_ID)).version).toBe(2);

    const elsewhere = new ExecutionRepository(new PostgresEventStore(db.pool));
    await elsewhere.handle(EXECUTION_ID, (_, now) => ({ type: 'StartDispatch', data: { dispatcherId: 'd-1', leaseMs: 30_000 }, metadata: { now } }), context);
    const after = await watching.load(EXECUTION_ID);
    expect(after.state.status).toBe('dispatched');
    expect(after.version).toBe(3);
    expect(after.events.map((e) => e.type)).toEqual(['ExecutionAccepted', 'ExecutionAuthorized', 'DispatchStarted']);
    expect(await watching.load(EXECUTION_ID)).toEqual(after);
    expect(reads).toEqual([1, 3, 4]);
    // A fresh fold from the whole stream agrees with the incremental one.
    expect(await new ExecutionRepository(new PostgresEventStore(db.pool)).load(EXECUTION_ID)).toEqual(after);
  });

  it('lets exactly one of ten concurrent dispatchers start the dispatch; the others are refused by the decider', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        repository.handle(EXECUTION_ID, (_loaded, now) => ({ type: 'StartDispatch', data: { dispatcherId: `d${i}`, leaseMs: 30_000 }, metadata: { now } }), context),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(IllegalTransitionError);
    const loaded = await repository.load(EXECUTION_ID);
    expect(loaded.events.filter((e) => e.type === 'DispatchStarted')).toHaveLength(1);
  });

  it('calls an asynchronous command function again after a conflict, so what it read is as fresh as the state it decides on', async () => {
    let calls = 0;
    const handled = await repository.handle(
      EXECUTION_ID,
      async (loaded, now) => {
        calls++;
        // The first time, another writer commits while this one is still reading.
        if (calls === 1) await repository.handle(EXECUTION_ID, (_l, at) => ({ type: 'StartDispatch', data: { dispatcherId: 'other', leaseMs: 30_000 }, metadata: { now: at } }), context);
        return loaded.state.status === 'dispatched' ? null : { type: 'StartDispatch', data: { dispatcherId: 'me', leaseMs: 30_000 }, metadata: { now } };
      },
      context,
    );
    expect(calls).toBe(2);
    expect(handled.appended).toEqual([]);
    expect(handled.state.status).toBe('dispatched');
  });

  it('appends nothing when the command function declines', async () => {
    const handled = await repository.handle(EXECUTION_ID, () => null, context);
    expect(handled.appended).toEqual([]);
    expect(handled.version).toBe(2);
  });
});
