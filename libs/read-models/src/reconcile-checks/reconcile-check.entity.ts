import { EntitySchema } from '@mikro-orm/core';

/** A row of `onceport.reconcile_checks` (migration 120): the reconciler's claim and next check time for one execution. */
export interface ReconcileCheckRow {
  executionId: string;
  streamVersion: number;
  nextCheckAt: Date | null;
  claimedBy: string | null;
  claimedUntil: Date | null;
}

export const ReconcileCheckEntity = new EntitySchema<ReconcileCheckRow>({
  name: 'ReconcileCheck',
  schema: 'onceport',
  tableName: 'reconcile_checks',
  properties: {
    executionId: { type: 'text', primary: true },
    streamVersion: { type: 'integer' },
    nextCheckAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    claimedBy: { type: 'text', nullable: true },
    claimedUntil: { type: 'Date', columnType: 'timestamptz', nullable: true },
  },
});
