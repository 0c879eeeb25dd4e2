import type { Queryable } from '@onceport/event-store';

/**
 * Executions the read model last saw in `needs_review`, longest waiting first. The read model (kept
 * by the sweep, woken by every append) finds them by index; each is then read from the store, so a
 * list never shows one a reviewer has just resolved.
 */
export async function executionsInReview(db: Queryable, limit: number): Promise<string[]> {
  const result = await db.query<{ execution_id: string }>(
    `SELECT execution_id FROM onceport.execution_matches WHERE status = 'needs_review' ORDER BY accepted_at LIMIT $1`,
    [limit],
  );
  return result.rows.map((row) => row.execution_id);
}
