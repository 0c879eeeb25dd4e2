import { executionStreamId } from '@onceport/contracts';
import { PostgresEventStore, type Queryable } from '@onceport/event-store';
import { createTestDatabase, type TestDatabase, testEvent } from '@onceport/event-store/testing';
import { ExecutionWatcher } from './execution-watcher';

describe('ExecutionWatcher (real PostgreSQL change feed)', () => {
  let db: TestDatabase;
  let watcher: ExecutionWatcher;
  let store: PostgresEventStore;

  beforeEach(async () => {
    db = await createTestDatabase();
    store = new PostgresEventStore(db.pool);
    watcher = new ExecutionWatcher(db.pool, (error) => {
      throw error;
    });
    await watcher.start();
  });
  afterEach(async () => {
    await watcher.stop();
    await db.drop();
  });

  const woken = (executionId: string): { readonly done: () => boolean; readonly next: Promise<void> } => {
    let done = false;
    const change = watcher.nextChange(executionId, Date.now() + 60_000);
    const next = change.next.then(() => {
      done = true;
    });
    return { done: () => done, next };
  };

  it('sleeps through the steps on the way to the target and wakes on an outcome', async () => {
    const waiting = woken('exe_waiting');
    const marker = woken('exe_marker');
    for (const type of ['ExecutionAccepted', 'ExecutionAuthorized', 'DispatchStarted', 'RetryAttached'])
      await store.append(executionStreamId('exe_waiting'), [testEvent(type)], { expectedVersion: 'any' });
    // Committed after those: once its waiter is woken, the feed has handed on every event before it.
    await store.append(executionStreamId('exe_marker'), [testEvent('OutcomeObserved')], { expectedVersion: 'any' });
    watcher.nudge();
    await marker.next;
    expect(waiting.done()).toBe(false);

    await store.append(executionStreamId('exe_waiting'), [testEvent('OutcomeObserved')], { expectedVersion: 'any' });
    watcher.nudge();
    await waiting.next;
    expect(waiting.done()).toBe(true);
  });

  it('hands every event of a watched execution to its followers before it wakes the waiter, with the version that woke it', async () => {
    const followed: { executionId: string; versions: number[] }[] = [];
    watcher.onWatchedEvents((executionId, events) => followed.push({ executionId, versions: events.map((e) => e.streamVersion) }));
    const change = watcher.nextChange('exe_followed', Date.now() + 60_000);
    const atWake = change.next.then((version) => ({ version, followed: followed.flatMap((f) => f.versions) }));
    await store.append(executionStreamId('exe_unwatched'), [testEvent('ExecutionAccepted')], { expectedVersion: 'any' });
    for (const type of ['ExecutionAccepted', 'ExecutionAuthorized', 'DispatchStarted', 'OutcomeObserved'])
      await store.append(executionStreamId('exe_followed'), [testEvent(type)], { expectedVersion: 'any' });
    watcher.nudge();
    expect(await atWake).toEqual({ version: 4, followed: [1, 2, 3, 4] });
    expect(new Set(followed.map((f) => f.executionId))).toEqual(new Set(['exe_followed']));
  });

  it('ends a wait at its deadline with no version', async () => {
    expect(await watcher.nextChange('exe_quiet', Date.now() + 20).next).toBeNull();
  });

  it('reads at once when it hears an outcome of an execution someone waits on, without the store’s notice or its poll', async () => {
    const hearings: { types: readonly string[]; heard: (streamId: string) => void }[] = [];
    const hearing = new ExecutionWatcher(
      db.pool,
      (error) => {
        throw error;
      },
      {
        hear: (types, heard) => {
          hearings.push({ types, heard });
          return () => hearings.splice(0);
        },
        pollIntervalMs: 3_600_000,
      },
    );
    await hearing.start();
    try {
      expect(hearings).toHaveLength(1);
      expect(hearings[0]?.types).toContain('OutcomeObserved');
      expect(hearings[0]?.types).not.toContain('DispatchStarted'); // wakes nobody: not worth a read
      // A writer whose notices go nowhere: only the hint can wake the feed before its hour-long poll.
      const silent: Queryable = {
        query: (text, values) => (text.includes('pg_notify') ? db.pool.query('SELECT 1') : db.pool.query(text, values)),
      };
      const quietStore = new PostgresEventStore(silent as typeof db.pool);
      // Twice: the feed's first read may still be under way at the first append; the second comes after it slept again.
      for (const executionId of ['exe_heard_first', 'exe_heard']) {
        const change = hearing.nextChange(executionId, Date.now() + 3_600_000);
        await quietStore.append(executionStreamId(executionId), [testEvent('OutcomeObserved')], { expectedVersion: 'any' });
        hearings[0]?.heard(executionStreamId(executionId));
        expect(await change.next).toBe(1);
      }
    } finally {
      await hearing.stop();
    }
    expect(hearings).toHaveLength(0); // stopped hearing with the feed
  });
});
