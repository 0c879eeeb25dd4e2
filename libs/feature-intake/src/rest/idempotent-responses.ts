import type { ExecutionStatus } from '@onceport/contracts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { RestIdempotentResponseEntity } from './idempotent-response.entity';

export interface StoredResponse {
  readonly executionId: string;
  readonly status: number;
  /** The body exactly as it was written to the first caller. */
  readonly body: string;
}

/** States after which the request behind a key is complete: its response is kept and replayed as is. */
export const KEY_COMPLETING_STATES: ReadonlySet<ExecutionStatus> = new Set<ExecutionStatus>([
  'completed_result_not_delivered',
  'completed',
  'failed',
  'denied',
  'expired',
  'reverted',
]);

/** The response first sent for an `Idempotency-Key` after its request completed (one per actor and key); a fork per call. */
export class IdempotentResponses {
  constructor(private readonly em: EntityManager) {}

  async find(actor: string, key: string): Promise<StoredResponse | null> {
    const row = await this.em
      .fork()
      .findOne(RestIdempotentResponseEntity, { actor, idempotencyKey: key }, { fields: ['executionId', 'status', 'body'] });
    return row ? { executionId: row.executionId, status: row.status, body: row.body } : null;
  }

  /**
   * Keeps `response` unless one is kept already, and returns the one kept: two callers finishing at
   * once both send the same bytes.
   */
  async keepFirst(actor: string, key: string, response: StoredResponse): Promise<StoredResponse> {
    await this.em
      .fork()
      .createQueryBuilder(RestIdempotentResponseEntity)
      .insert({ actor, idempotencyKey: key, executionId: response.executionId, status: response.status, body: response.body })
      .onConflict()
      .ignore()
      .execute();
    const kept = await this.find(actor, key);
    if (!kept) throw new Error(`the response for Idempotency-Key of ${actor} was not kept`);
    return kept;
  }
}
