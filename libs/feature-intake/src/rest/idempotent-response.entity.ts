import { EntitySchema, type Opt } from '@mikro-orm/core';

/** A row of `onceport.rest_idempotent_responses` (migration 202): never updated once kept. */
export interface RestIdempotentResponseRow {
  actor: string;
  idempotencyKey: string;
  executionId: string;
  status: number;
  body: string;
  storedAt: Opt<Date>;
}

export const RestIdempotentResponseEntity = new EntitySchema<RestIdempotentResponseRow>({
  name: 'RestIdempotentResponse',
  schema: 'onceport',
  tableName: 'rest_idempotent_responses',
  properties: {
    actor: { type: 'text', primary: true },
    idempotencyKey: { type: 'text', primary: true },
    executionId: { type: 'text' },
    status: { type: 'integer' },
    body: { type: 'text' },
    storedAt: { type: 'Date', columnType: 'timestamptz', defaultRaw: 'now()' },
  },
});
