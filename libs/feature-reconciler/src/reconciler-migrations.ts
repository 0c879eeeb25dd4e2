import type { SchemaStep } from '@onceport/event-store';
import { ReconcileChecksMigration } from '@onceport/read-models';

/** The reconciler's own schema steps (after the shared ones): its claims table. */
export const reconcilerMigrations: readonly SchemaStep[] = [ReconcileChecksMigration];
