import { type CommandHandler, PostgresEventStore } from '@onceport/event-store';
import { createTestDatabase, genericPlansOf, testEvent, type TestDatabase } from '@onceport/event-store/testing';
import { intakeMigrations } from '../intake.migrations';
import { InFlightExecutions } from './in-flight-executions';

/**
 * Every acceptance reserves an in-flight slot, on a prepared statement that PostgreSQL may plan
 * generically. Such a plan must look the slot up in the index: a scan reads every row in flight.
 * Two tables: one busy actor with a high cap (the bench's shape: its rows are most of the table, so a
 * plan that ignores the values guesses that most rows match and is tempted by a sequential scan), and
 * a fresh table of a few rows, never analyzed: a service that starts on it keeps the plan it makes there.
 */
describe.each([
  ['20,000 analyzed rows of one actor', 20_000, true],
  ['a fresh table of a few rows, never analyzed', 5, false],
])('in-flight reservation under a generic plan, on %s', (_table, rows, analyzed) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase(intakeMigrations);
    await db.pool.query(`
      INSERT INTO onceport.intake_in_flight (actor, slot, execution_id, accepted_at)
      SELECT 'agent:busy', g * 7, 'exec-' || g, now() FROM generate_series(0, ${rows - 1}) AS g`);
    if (analyzed) await db.pool.query('ANALYZE onceport.intake_in_flight');
  });

  afterAll(async () => {
    await db.drop();
  });

  it('takes a random slot through the index on (actor, slot), not by scanning the table', async () => {
    const commands = { load: () => Promise.reject(new Error('not used by reserve')) } as unknown as Pick<CommandHandler, 'load'>;
    // The probe answers every statement with no rows: reserve makes its four random tries, then counts.
    const plans = await genericPlansOf(db.pool, (probe) =>
      new InFlightExecutions(probe, commands).reserve(probe, 'agent:busy', 'exec-new', 1_000_000, new Date()),
    );
    const randomTries = plans.slice(0, 4);

    expect(randomTries).toHaveLength(4);
    for (const plan of randomTries) {
      expect(plan).toContain('intake_in_flight_slot');
      expect(plan).not.toContain('Seq Scan');
    }
  });

  it('takes the place guarding an acceptance (one statement with its events) through the same index', async () => {
    const commands = { load: () => Promise.reject(new Error('not used by the guard')) } as unknown as Pick<CommandHandler, 'load'>;
    const plans = await genericPlansOf(db.pool, (probe) =>
      new PostgresEventStore(probe).appendTogether(
        [{ streamId: 'execution-new', events: [testEvent('ExecutionAccepted')], expectedVersion: 0 }],
        new InFlightExecutions(probe, commands).randomSlotGuard('agent:busy', 'exec-new', 1_000_000, new Date()),
      ),
    );

    expect(plans).toHaveLength(1);
    expect(plans[0]).toContain('intake_in_flight_slot');
    expect(plans[0]).not.toContain('Seq Scan');
  });
});
