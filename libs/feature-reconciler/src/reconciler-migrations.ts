import type { Migration } from '@onceport/event-store';
import { reconcileChecksMigration } from '@onceport/read-models';
import { allMigrations } from '@onceport/runtime';

/** Every schema step the reconciler needs: the shared ones, then its own claims table. */
export const reconcilerMigrations: readonly Migration[] = [...allMigrations, reconcileChecksMigration];
