import type { Queryable } from '@onceport/event-store';

/** Executions whose dispatch nobody finished recording: dispatched (maybe past the lease) or unknown. */
export async function unsettledExecutions(db: Queryable, limit: number): Promise<string[]> {
  const result = await db.query<{ execution_id: string }>(
    `SELECT execution_id FROM onceport.execution_matches
     WHERE status IN ('dispatched', 'dispatched_unknown') ORDER BY accepted_at LIMIT $1`,
    [limit],
  );
  return result.rows.map((row) => row.execution_id);
}

/** Unfinished or undelivered executions whose correlation window has closed. */
export async function expiredWindows(db: Queryable, limit: number): Promise<string[]> {
  const result = await db.query<{ execution_id: string }>(
    `SELECT execution_id FROM onceport.execution_matches
     WHERE status IN ('accepted', 'awaiting_approval', 'authorized', 'completed_result_not_delivered')
       AND correlation_window_ends_at < now() ORDER BY correlation_window_ends_at LIMIT $1`,
    [limit],
  );
  return result.rows.map((row) => row.execution_id);
}

/** Executions waiting for a service to act (accepted → authorization, authorized → dispatcher). */
export async function waitingForAService(db: Queryable, limit: number): Promise<string[]> {
  const result = await db.query<{ execution_id: string }>(
    `SELECT execution_id FROM onceport.execution_matches
     WHERE status IN ('accepted', 'authorized') AND correlation_window_ends_at >= now() ORDER BY accepted_at LIMIT $1`,
    [limit],
  );
  return result.rows.map((row) => row.execution_id);
}
