import type { Migration } from '@onceport/event-store';
import { reconcileChecksMigration } from '@onceport/read-models';

/** The reconciler's own schema steps (after the shared ones): its claims table. */
export const reconcilerMigrations: readonly Migration[] = [reconcileChecksMigration];
