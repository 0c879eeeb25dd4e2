import { type CommandHandler, PostgresEventStore, type StreamAppend } from '@onceport/event-store';
import { createTestDatabase, testEvent, type TestDatabase } from '@onceport/event-store/testing';
import { intakeMigrations } from '../intake.migrations';
import { InFlightExecutions } from './in-flight-executions';

/**
 * Acceptances that arrive while one is in flight share a statement, their random slot picks merged
 * into one guard. It takes every place with every acceptance, or none: a merged guard that took some
 * places and skipped their events would leave places held by executions that do not exist.
 */
describe('in-flight slot picks merged into one guard (real PostgreSQL)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  const commands = { load: () => Promise.reject(new Error('not used')) } as unknown as Pick<CommandHandler, 'load'>;

  beforeAll(async () => {
    db = await createTestDatabase(intakeMigrations);
    store = new PostgresEventStore(db.pool);
  });
  afterAll(() => db?.drop());

  /** An acceptance of `executionId` whose random pick is `slot` (of `cap`). */
  function acceptance(actor: string, executionId: string, slot: number, cap = 100) {
    const picks = new InFlightExecutions(db.pool, commands, () => slot / cap);
    const appends: StreamAppend[] = [{ streamId: `exec-${executionId}`, events: [testEvent('Accepted')], expectedVersion: 0 }];
    return { appends, guard: picks.randomSlotGuard(actor, executionId, cap, new Date()) };
  }
  function merged(...accepting: ReturnType<typeof acceptance>[]) {
    const [first] = accepting;
    if (!first?.guard.mergeable) throw new Error('a random pick merges');
    return { appends: accepting.flatMap((a) => a.appends), guard: first.guard.mergeable.merge(accepting.map((a) => a.guard)) };
  }
  const held = async (actor: string) =>
    (await db.pool.query('SELECT slot, execution_id FROM onceport.intake_in_flight WHERE actor = $1 ORDER BY slot', [actor])).rows;
  const streams = async (prefix: string) =>
    (
      await db.pool.query('SELECT DISTINCT stream_id FROM onceport.events WHERE stream_id LIKE $1 ORDER BY stream_id', [`${prefix}%`])
    ).rows.map((row: { stream_id: string }) => row.stream_id);

  it('free slots: every place taken and every acceptance written, in one statement', async () => {
    const group = merged(acceptance('agent:m1', 'm1-a', 3), acceptance('agent:m1', 'm1-b', 7), acceptance('agent:m1-other', 'm1-c', 3));
    expect(await store.appendTogether(group.appends, group.guard)).toBe(true);
    expect(await held('agent:m1')).toEqual([
      { slot: 3, execution_id: 'm1-a' },
      { slot: 7, execution_id: 'm1-b' },
    ]);
    expect(await held('agent:m1-other')).toEqual([{ slot: 3, execution_id: 'm1-c' }]);
    expect(await streams('exec-m1-')).toEqual(['exec-m1-a', 'exec-m1-b', 'exec-m1-c']);
  });

  it('one pick meets a held slot (or another pick of the group): the statement fails, nothing of any of them is written', async () => {
    await db.pool.query(
      `INSERT INTO onceport.intake_in_flight (actor, slot, execution_id, accepted_at) VALUES ('agent:m2', 5, 'm2-held', now())`,
    );
    const meetsHeld = merged(acceptance('agent:m2', 'm2-a', 1), acceptance('agent:m2', 'm2-b', 5));
    await expect(store.appendTogether(meetsHeld.appends, meetsHeld.guard)).rejects.toMatchObject({ code: '23505' });
    const meetEachOther = merged(acceptance('agent:m2', 'm2-c', 9), acceptance('agent:m2', 'm2-d', 9));
    await expect(store.appendTogether(meetEachOther.appends, meetEachOther.guard)).rejects.toMatchObject({ code: '23505' });
    expect(await held('agent:m2')).toEqual([{ slot: 5, execution_id: 'm2-held' }]);
    expect(await streams('exec-m2-')).toEqual([]);
    // Alone, the pick of a held slot is refused as before, without an error: the caller takes turns for one.
    const alone = acceptance('agent:m2', 'm2-b', 5);
    expect(await store.appendTogether(alone.appends, alone.guard)).toBe(false);
  });

  it('a cap lowered below a held slot: the merged picks fail whole, as each alone is refused', async () => {
    await db.pool.query(
      `INSERT INTO onceport.intake_in_flight (actor, slot, execution_id, accepted_at) VALUES ('agent:m3', 50, 'm3-held', now())`,
    );
    const group = merged(acceptance('agent:m3', 'm3-a', 1, 10), acceptance('agent:m3', 'm3-b', 2, 10));
    await expect(store.appendTogether(group.appends, group.guard)).rejects.toMatchObject({ code: '23514' });
    expect(await held('agent:m3')).toEqual([{ slot: 50, execution_id: 'm3-held' }]);
    expect(await streams('exec-m3-')).toEqual([]);
    const alone = acceptance('agent:m3', 'm3-a', 1, 10);
    expect(await store.appendTogether(alone.appends, alone.guard)).toBe(false);
  });
});
