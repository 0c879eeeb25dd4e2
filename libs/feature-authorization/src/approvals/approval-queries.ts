import { type Queryable } from '@onceport/event-store';

/**
 * Approvals are found through the executions read model (`execution_matches`, indexed by status),
 * never by scanning the event log: the sweep runs every few seconds on every replica. Callers catch
 * the read model up first and then load each execution from the store, so what they show is the
 * stream itself — the read model only says where to look.
 */

/** Executions awaiting an approval, oldest first. */
export async function undecidedApprovals(db: Queryable, limit: number): Promise<string[]> {
  const result = await db.query<{ execution_id: string }>(
    `SELECT execution_id FROM onceport.execution_matches
     WHERE status = 'awaiting_approval' ORDER BY accepted_at, execution_id LIMIT $1`,
    [limit],
  );
  return result.rows.map((row) => row.execution_id);
}

/** The most recent `limit` executions that asked for an approval, decided or not, returned oldest first. */
export async function recentApprovals(db: Queryable, limit: number): Promise<string[]> {
  const result = await db.query<{ execution_id: string }>(
    `SELECT execution_id FROM (
       SELECT execution_id, accepted_at FROM onceport.execution_matches
       WHERE state->'progress'->>'approvalId' IS NOT NULL ORDER BY accepted_at DESC, execution_id DESC LIMIT $1
     ) recent ORDER BY accepted_at, execution_id`,
    [limit],
  );
  return result.rows.map((row) => row.execution_id);
}

/** Undecided approvals whose deadline has passed: what the expiry sweep ends. */
export async function lapsedApprovals(db: Queryable, limit: number): Promise<{ executionId: string; approvalId: string }[]> {
  const result = await db.query<{ execution_id: string; approval_id: string }>(
    `SELECT execution_id, state->'approvalRequest'->>'approvalId' AS approval_id FROM onceport.execution_matches
     WHERE status = 'awaiting_approval' AND (state->'approvalRequest'->>'expiresAt')::timestamptz <= now()
     ORDER BY accepted_at LIMIT $1`,
    [limit],
  );
  return result.rows.map((row) => ({ executionId: row.execution_id, approvalId: row.approval_id }));
}
