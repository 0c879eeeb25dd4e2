import { Migration } from '@mikro-orm/migrations';

/**
 * Readers are woken by the writer after its commit (PostgresEventStore, inTransaction), no longer by
 * a trigger inside the writing transaction: a NOTIFY there holds a cluster-wide lock through the
 * commit's WAL flush and queues every appending commit behind the one before (see
 * appended-notice.ts for the measurement).
 */
export class NotifyAfterCommitMigration extends Migration {
  static readonly id = '002-notify-after-commit';

  override up(): void {
    this.addSql(`
DROP TRIGGER IF EXISTS events_notify ON onceport.events;
DROP FUNCTION IF EXISTS onceport.notify_appended();
`);
  }
}
