import type { Migration } from './migration';

/**
 * Readers are woken by the writer after its commit (PostgresEventStore, inTransaction), no longer by
 * a trigger inside the writing transaction: a NOTIFY there holds a cluster-wide lock through the
 * commit's WAL flush and queues every appending commit behind the one before (see
 * appended-notice.ts for the measurement).
 */
export const notifyAfterCommitMigration: Migration = {
  id: '002-notify-after-commit',
  sql: `
DROP TRIGGER IF EXISTS events_notify ON onceport.events;
DROP FUNCTION IF EXISTS onceport.notify_appended();
`,
};
