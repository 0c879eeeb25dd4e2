import { eventStoreMigration } from './001-event-store';
import { notifyAfterCommitMigration } from './002-notify-after-commit';
import { eventQuarantineMigration } from './009-event-quarantine';
import type { Migration } from './migration';

export type { Migration } from './migration';
export { type MigrationOptions, runMigrations } from './migration-runner';
export { MigrationSetupError, SERVICE_ROLE_PATTERN, grantServiceRole } from './service-role-grants';

/** The event store's own schema steps, in order. Read models add theirs after these. */
export const eventStoreMigrations: readonly Migration[] = [eventStoreMigration, notifyAfterCommitMigration, eventQuarantineMigration];
