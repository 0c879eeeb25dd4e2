import { Migration } from '@mikro-orm/migrations';

/**
 * The executions each actor has in flight, as intake admitted them: a row is written in the
 * transaction that accepts the execution, and dropped once the store says it settled (see
 * in-flight-executions.ts). At most `max_in_flight` rows per actor are ever kept.
 */
export class IntakeInFlightMigration extends Migration {
  static readonly id = '210-intake-in-flight';

  override up(): void {
    this.addSql(`
CREATE TABLE onceport.intake_in_flight (
  actor         text        NOT NULL,
  execution_id  text        NOT NULL,
  accepted_at   timestamptz NOT NULL,
  PRIMARY KEY (actor, execution_id)
);
`);
  }
}
