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

/**
 * Where an approval of each status stands in the read model's state (see approverViewOf): an
 * execution with an approval id was granted exactly when it got authorized (only a grant can
 * authorize it once it asked); otherwise a denial for expiry, a closed correlation window, or a
 * lapsed deadline still awaiting the sweep is an expiry, and any other denial a rejection.
 */
const STATUS_CONDITION: Record<'pending' | 'granted' | 'rejected' | 'expired' | 'all', string> = {
  pending: `status = 'awaiting_approval' AND (state->'approvalRequest'->>'expiresAt')::timestamptz > at.now`,
  granted: `state->'progress'->>'authorization' IS NOT NULL`,
  rejected: `state->'progress'->>'authorization' IS NULL AND status = 'denied' AND state->'denial'->>'code' <> 'approval_expired'`,
  expired: `state->'progress'->>'authorization' IS NULL AND (
              status = 'expired'
              OR (status = 'denied' AND state->'denial'->>'code' = 'approval_expired')
              OR (status = 'awaiting_approval' AND (state->'approvalRequest'->>'expiresAt')::timestamptz <= at.now))`,
  all: 'TRUE',
};

/**
 * The most recent `limit` approvals of a status (or of any, with 'all'), returned oldest first.
 * The status is filtered in the query, before the limit: a status that is rare among recent
 * approvals still fills the page.
 */
export async function recentApprovals(db: Queryable, status: keyof typeof STATUS_CONDITION, limit: number, now: Date): Promise<string[]> {
  const result = await db.query<{ execution_id: string }>(
    `SELECT execution_id FROM (
       SELECT execution_id, accepted_at FROM onceport.execution_matches, (SELECT $2::timestamptz AS now) at
       WHERE state->'progress'->>'approvalId' IS NOT NULL AND (${STATUS_CONDITION[status]})
       ORDER BY accepted_at DESC, execution_id DESC LIMIT $1
     ) recent ORDER BY accepted_at, execution_id`,
    [limit, now.toISOString()],
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
