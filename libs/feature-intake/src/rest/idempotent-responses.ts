import type { ExecutionStatus } from '@onceport/contracts';
import type { Queryable } from '@onceport/event-store';

export interface StoredResponse {
  readonly executionId: string;
  readonly status: number;
  /** The body exactly as it was written to the first caller. */
  readonly body: string;
}

/** States after which the request behind a key is complete: its response is kept and replayed as is. */
export const KEY_COMPLETING_STATES: ReadonlySet<ExecutionStatus> = new Set<ExecutionStatus>(['completed_result_not_delivered', 'completed', 'failed', 'denied', 'expired', 'reverted']);

/** The response first sent for an `Idempotency-Key` after its request completed (one per actor and key). */
export class IdempotentResponses {
  constructor(private readonly db: Queryable) {}

  async find(actor: string, key: string): Promise<StoredResponse | null> {
    const result = await this.db.query<{ execution_id: string; status: number; body: string }>(
      'SELECT execution_id, status, body FROM onceport.rest_idempotent_responses WHERE actor = $1 AND idempotency_key = $2',
      [actor, key],
    );
    const row = result.rows[0];
    return row ? { executionId: row.execution_id, status: row.status, body: row.body } : null;
  }

  /**
   * Keeps `response` unless one is kept already, and returns the one kept: two callers finishing at
   * once both send the same bytes.
   */
  async keepFirst(actor: string, key: string, response: StoredResponse): Promise<StoredResponse> {
    await this.db.query(
      'INSERT INTO onceport.rest_idempotent_responses (actor, idempotency_key, execution_id, status, body) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING',
      [actor, key, response.executionId, response.status, response.body],
    );
    const kept = await this.find(actor, key);
    if (!kept) throw new Error(`the response for Idempotency-Key of ${actor} was not kept`);
    return kept;
  }
}
