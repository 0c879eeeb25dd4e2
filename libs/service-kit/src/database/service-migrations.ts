import { type MigrationOptions, ResultStoreMigration, type SchemaStep, eventStoreMigrations, runMigrations } from '@onceport/event-store';
import { messagingMigrations } from '@onceport/messaging';
import {
  ExecutionMatchesIntentDigestMigration,
  ExecutionMatchesMigration,
  RunsListingMigration,
  RunsMigration,
} from '@onceport/read-models';

/** Every schema step Onceport owns, in order; safe to run from every replica on every start. */
export const allMigrations: readonly SchemaStep[] = [
  ...eventStoreMigrations,
  ...messagingMigrations,
  ExecutionMatchesMigration,
  ExecutionMatchesIntentDigestMigration,
  ResultStoreMigration,
  RunsMigration,
  RunsListingMigration,
];

/** `options.serviceRole`: grant the services' role what it needs (run as the owner: the migrate-only step). */
export function migrate(databaseUrl: string, extra: readonly SchemaStep[] = [], options: MigrationOptions = {}): Promise<string[]> {
  return runMigrations(databaseUrl, [...allMigrations, ...extra], options);
}
