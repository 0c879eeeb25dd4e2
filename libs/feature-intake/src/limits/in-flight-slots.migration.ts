import { Migration } from '@mikro-orm/migrations';

/**
 * An actor's in-flight places become numbered slots, `0 … max_in_flight − 1`, unique per actor: a
 * new execution takes a free slot without taking turns with the actor's other calls (the per-actor
 * lock it took before held every acceptance of one actor through the commit before it). Rows kept
 * from before get the slots in the order they were accepted.
 */
export class IntakeInFlightSlotsMigration extends Migration {
  static readonly id = '211-intake-in-flight-slots';

  override up(): void {
    this.addSql(`
ALTER TABLE onceport.intake_in_flight ADD COLUMN slot integer CHECK (slot >= 0);
UPDATE onceport.intake_in_flight f SET slot = numbered.slot
  FROM (SELECT actor, execution_id, (row_number() OVER (PARTITION BY actor ORDER BY accepted_at, execution_id) - 1)::int AS slot
          FROM onceport.intake_in_flight) numbered
 WHERE f.actor = numbered.actor AND f.execution_id = numbered.execution_id;
CREATE UNIQUE INDEX intake_in_flight_slot ON onceport.intake_in_flight (actor, slot);
`);
  }
}
