import type { Migration } from '@onceport/event-store';
import { relayPublicationsMigration } from './050-relay-publications';

/** The messaging lib's own tables, after the event store's and before the read models'. */
export const messagingMigrations: readonly Migration[] = [relayPublicationsMigration];
