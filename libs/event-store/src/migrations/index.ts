import { EventStoreMigration } from './001-event-store';
import { NotifyAfterCommitMigration } from './002-notify-after-commit';
import { EventQuarantineMigration } from './009-event-quarantine';
import type { SchemaStep } from './schema-step';

export { type SchemaStep, sqlMigration } from './schema-step';
export { EventQuarantineMigration, EventStoreMigration, NotifyAfterCommitMigration };

/** The event store's own schema steps, in order. Read models add theirs after these. */
export const eventStoreMigrations: readonly SchemaStep[] = [EventStoreMigration, NotifyAfterCommitMigration, EventQuarantineMigration];
