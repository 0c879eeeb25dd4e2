import type { Queryable } from '@onceport/event-store';

/**
 * When an unsettled execution falls due: the check time set at its current version (or a later one
 * the read model has not caught up with yet), else its lease end (unknown: now).
 */
const DUE_AT = `COALESCE(CASE WHEN c.stream_version >= m.stream_version THEN c.next_check_at END,
  CASE WHEN m.status = 'dispatched' THEN (m.state->'lease'->>'leaseExpiresAt')::timestamptz ELSE '-infinity'::timestamptz END)`;

export interface Claim {
  readonly limit: number;
  /** How long a claim keeps other replicas off the execution: longer than one settle takes. */
  readonly claimMs: number;
  readonly claimant: string;
}

/**
 * Claims the unsettled executions (dispatched or unknown) that are due now and unclaimed, earliest
 * due first, so that long-running in-flight dispatches never crowd a dead one out of the sweep.
 * Replicas skip rows another one is claiming right now (SKIP LOCKED), and the ON CONFLICT guard,
 * which reads the latest committed claim, refuses a row another replica claimed or rescheduled
 * after this statement's snapshot. Fencing on the stream version stays the guarantee; the claim
 * keeps two replicas from probing one execution at once.
 */
export async function claimDueExecutions(db: Queryable, claim: Claim): Promise<string[]> {
  const result = await db.query<{ execution_id: string }>(
    `WITH picked AS (
       SELECT m.execution_id, m.stream_version FROM onceport.execution_matches m
         LEFT JOIN onceport.reconcile_checks c ON c.execution_id = m.execution_id
       WHERE m.status IN ('dispatched', 'dispatched_unknown') AND (c.claimed_until IS NULL OR c.claimed_until <= now()) AND ${DUE_AT} <= now()
       ORDER BY ${DUE_AT}, m.accepted_at LIMIT $1
       FOR UPDATE OF m SKIP LOCKED)
     INSERT INTO onceport.reconcile_checks AS c (execution_id, stream_version, claimed_by, claimed_until)
       SELECT execution_id, stream_version, $3, now() + make_interval(secs => $2::double precision / 1000) FROM picked
     ON CONFLICT (execution_id) DO UPDATE SET claimed_by = excluded.claimed_by, claimed_until = excluded.claimed_until
       WHERE (c.claimed_until IS NULL OR c.claimed_until <= now())
         AND (c.next_check_at IS NULL OR c.next_check_at <= now() OR c.stream_version < excluded.stream_version)
     RETURNING c.execution_id`,
    [claim.limit, claim.claimMs, claim.claimant],
  );
  return result.rows.map((row) => row.execution_id);
}

/** Ends this replica's claim: look again at `atMs`, unless the execution moves past `version` first. */
export async function releaseWithNextCheck(db: Queryable, executionId: string, claimant: string, version: number, atMs: number): Promise<void> {
  await db.query(
    `UPDATE onceport.reconcile_checks
     SET stream_version = $3, next_check_at = to_timestamp($4::double precision / 1000), claimed_by = NULL, claimed_until = NULL
     WHERE execution_id = $1 AND claimed_by = $2`,
    [executionId, claimant, version, atMs],
  );
}

/** Forgets the check times of executions that are no longer unsettled (a replica died holding them). */
export async function forgetSettledChecks(db: Queryable): Promise<void> {
  await db.query(
    `DELETE FROM onceport.reconcile_checks c WHERE NOT EXISTS (
       SELECT 1 FROM onceport.execution_matches m WHERE m.execution_id = c.execution_id AND m.status IN ('dispatched', 'dispatched_unknown'))`,
  );
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
