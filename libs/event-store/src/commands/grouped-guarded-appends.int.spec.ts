import { WrongExpectedVersionError } from '../errors';
import type { AppendGuard } from '../event-store.port';
import { PostgresEventStore } from '../postgres-event-store';
import { ResultStore, ResultStoreMigration, referenceFor } from '../results/result-store';
import { type TestDatabase, createTestDatabase, testEvent } from '../testing';
import { GroupedGuardedAppends } from './grouped-guarded-appends';

describe('GroupedGuardedAppends (real PostgreSQL)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  let results: ResultStore;

  beforeEach(async () => {
    db = await createTestDatabase([ResultStoreMigration]);
    store = new PostgresEventStore(db.pool);
    results = new ResultStore(db.pool);
  });
  afterEach(() => db.drop());

  /** A command's outcome with its answer's bytes: the bytes' write guards the event. */
  const outcome = (streamId: string, expectedVersion: number, text: string) => {
    const body = Buffer.from(text);
    const reference = referenceFor(body, 'text/plain');
    return {
      streamId,
      reference,
      appends: [{ streamId, events: [testEvent('OutcomeHappened', { ref: reference.ref })], expectedVersion }],
      guard: results.writeGuard(reference, body),
    };
  };
  const written = async (streamIds: readonly string[]) =>
    (
      await db.pool.query<{ stream_id: string; stream_version: number; transaction_id: string }>(
        'SELECT stream_id, stream_version, transaction_id::text FROM onceport.events WHERE stream_id = ANY($1) ORDER BY stream_id',
        [streamIds],
      )
    ).rows;

  it('a lone command goes at once; the commands that arrive meanwhile commit in one statement, every answer’s bytes with them', async () => {
    const grouped = new GroupedGuardedAppends(store);
    const commands = ['o-a', 'o-b', 'o-c', 'o-d', 'o-e'].map((streamId, i) => outcome(streamId, 0, `answer ${i}`));

    expect(await Promise.all(commands.map((command) => grouped.append(command.appends, command.guard)))).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);

    const rows = await written(commands.map((command) => command.streamId));
    expect(rows.map((row) => [row.stream_id, row.stream_version])).toEqual(commands.map((command) => [command.streamId, 1]));
    expect(new Set(rows.slice(1).map((row) => row.transaction_id)).size).toBe(1); // the four that waited: one commit
    expect(rows[0]?.transaction_id).not.toBe(rows[1]?.transaction_id);
    for (const [i, command] of commands.entries()) expect((await results.get(command.reference.ref))?.body.toString()).toBe(`answer ${i}`);
  });

  it('a stream that moved on fails only its own command, whose bytes are not written; the rest of its group commits', async () => {
    const grouped = new GroupedGuardedAppends(store);
    await store.append('m-moved', [testEvent()], { expectedVersion: 0 });
    const commands = [
      outcome('m-first', 0, 'first'),
      outcome('m-fine', 0, 'fine'),
      outcome('m-moved', 0, 'moved'),
      outcome('m-other', 0, 'other'),
    ];

    const outcomes = await Promise.allSettled(commands.map((command) => grouped.append(command.appends, command.guard)));

    expect(outcomes.map((settled) => settled.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedVersionError);
    expect((await written(['m-first', 'm-fine', 'm-moved', 'm-other'])).map((row) => [row.stream_id, row.stream_version])).toEqual([
      ['m-fine', 1],
      ['m-first', 1],
      ['m-moved', 1],
      ['m-other', 1],
    ]);
    expect(await results.get(commands[2]!.reference.ref)).toBeNull();
    expect((await results.get(commands[3]!.reference.ref))?.body.toString()).toBe('other');
  });

  it('a guard that cannot merge goes alone, and its refusal is its caller’s alone', async () => {
    const grouped = new GroupedGuardedAppends(store);
    const refusing: AppendGuard = { text: 'SELECT 1 WHERE false', values: [] };
    const first = outcome('n-first', 0, 'first');
    const fine = outcome('n-fine', 0, 'fine');

    const answers = await Promise.all([
      grouped.append(first.appends, first.guard),
      grouped.append([{ streamId: 'n-refused', events: [testEvent()], expectedVersion: 0 }], refusing),
      grouped.append(fine.appends, fine.guard),
    ]);

    expect(answers).toEqual([true, false, true]);
    expect((await written(['n-first', 'n-refused', 'n-fine'])).map((row) => row.stream_id)).toEqual(['n-fine', 'n-first']);
  });
  it('a merged guard that refuses is found out in halves: only the member whose own guard refuses hears it', async () => {
    const grouped = new GroupedGuardedAppends(store);
    const merged: string[] = [];
    // A guard of a kind of its own: it passes when its value is true; merged, when every value is.
    const guard = (pass: boolean): AppendGuard => ({
      text: 'SELECT 1 WHERE $1::boolean',
      values: [pass],
      mergeable: {
        kind: 'test',
        merge: (guards) => {
          merged.push(guards.map((g) => String(g.values[0])).join(','));
          return { text: 'SELECT 1 WHERE true = ALL($1::boolean[])', values: [guards.map((g) => g.values[0])] };
        },
      },
    });
    const append = (streamId: string, pass: boolean) =>
      grouped.append([{ streamId, events: [testEvent()], expectedVersion: 0 }], guard(pass));

    const answers = await Promise.all([append('h-first', true), append('h-a', true), append('h-refused', false), append('h-b', true)]);

    expect(answers).toEqual([true, true, false, true]);
    expect(merged).toEqual(['true,false,true', 'true,false']); // the group of three, then its first half; then each alone
    expect((await written(['h-first', 'h-a', 'h-refused', 'h-b'])).map((row) => row.stream_id)).toEqual(['h-a', 'h-b', 'h-first']);
  });
});
