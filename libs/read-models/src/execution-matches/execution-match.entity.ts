import { EntitySchema } from '@mikro-orm/core';

/**
 * A row of `onceport.execution_matches` (migrations 100, 101). Written only by its projection, in
 * the projection's own transaction with its checkpoint (pg); read through this entity.
 */
export interface ExecutionMatchRow {
  executionId: string;
  fingerprint: string;
  actor: string;
  intentScope: string;
  tool: string;
  status: string;
  acceptedAt: Date;
  correlationWindowEndsAt: Date;
  ledgerRetentionEndsAt: Date | null;
  streamVersion: number;
  state: unknown;
}

export const ExecutionMatchEntity = new EntitySchema<ExecutionMatchRow>({
  name: 'ExecutionMatch',
  schema: 'onceport',
  tableName: 'execution_matches',
  properties: {
    executionId: { type: 'text', primary: true },
    fingerprint: { type: 'text' },
    actor: { type: 'text' },
    intentScope: { type: 'text' },
    tool: { type: 'text' },
    status: { type: 'text' },
    acceptedAt: { type: 'Date', columnType: 'timestamptz' },
    correlationWindowEndsAt: { type: 'Date', columnType: 'timestamptz' },
    ledgerRetentionEndsAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    streamVersion: { type: 'integer' },
    state: { type: 'json' },
  },
});
