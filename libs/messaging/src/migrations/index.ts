import type { SchemaStep } from '@onceport/event-store';
import { RelayPublicationsMigration } from './050-relay-publications';

/** The messaging lib's own tables, after the event store's and before the read models'. */
export const messagingMigrations: readonly SchemaStep[] = [RelayPublicationsMigration];
