import { executionIdOfStream } from '@onceport/contracts';
import { type Queryable } from '@onceport/event-store';

/**
 * Approvals are found in the event store itself, not in a projection: an approver must see a
 * request the moment it is recorded, and a decision the moment it is made. The store is the
 * source of truth; the per-stream lookups below ride its (stream_id, stream_version) key.
 */

/** Events that end an approval; one of them after the request means it is no longer pending. */
const ENDINGS = `('ApprovalGranted', 'ApprovalRejected', 'ExecutionDenied', 'CorrelationExpired')`;

const UNDECIDED = `NOT EXISTS (
  SELECT 1 FROM onceport.events d
  WHERE d.stream_id = r.stream_id AND d.stream_version > r.stream_version AND d.event_type IN ${ENDINGS})`;

/** Executions whose approval nobody decided yet, oldest request first. */
export async function undecidedApprovals(db: Queryable, limit: number): Promise<string[]> {
  const result = await db.query<{ stream_id: string }>(
    `SELECT r.stream_id FROM onceport.events r
     WHERE r.event_type = 'ApprovalRequested' AND ${UNDECIDED}
     ORDER BY r.global_position LIMIT $1`,
    [limit],
  );
  return executionIds(result.rows);
}

/** The most recent `limit` approval requests, decided or not, returned oldest first. */
export async function recentApprovals(db: Queryable, limit: number): Promise<string[]> {
  const result = await db.query<{ stream_id: string }>(
    `SELECT stream_id FROM (
       SELECT r.stream_id, r.global_position FROM onceport.events r
       WHERE r.event_type = 'ApprovalRequested' ORDER BY r.global_position DESC LIMIT $1
     ) recent ORDER BY global_position`,
    [limit],
  );
  return executionIds(result.rows);
}

/** Undecided approvals whose deadline has passed: what the expiry sweep ends. */
export async function lapsedApprovals(db: Queryable, limit: number): Promise<{ executionId: string; approvalId: string }[]> {
  const result = await db.query<{ stream_id: string; approval_id: string }>(
    `SELECT r.stream_id, r.data->>'approvalId' AS approval_id FROM onceport.events r
     WHERE r.event_type = 'ApprovalRequested' AND (r.data->>'expiresAt')::timestamptz <= now() AND ${UNDECIDED}
     ORDER BY r.global_position LIMIT $1`,
    [limit],
  );
  return result.rows.flatMap((row) => {
    const executionId = executionIdOfStream(row.stream_id);
    return executionId ? [{ executionId, approvalId: row.approval_id }] : [];
  });
}

function executionIds(rows: readonly { stream_id: string }[]): string[] {
  return rows.flatMap((row) => {
    const executionId = executionIdOfStream(row.stream_id);
    return executionId ? [executionId] : [];
  });
}
