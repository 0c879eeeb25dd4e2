import type { EntityManager } from '@mikro-orm/postgresql';
import { ExecutionMatchEntity, ReconcileCheckEntity } from '@onceport/read-models';

/** The states the reconciler settles (a dispatch that may have reached the target). */
const UNSETTLED = ['dispatched', 'dispatched_unknown'];

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
 * keeps two replicas from probing one execution at once. SQL through the EntityManager: the pick,
 * the lock and the guarded upsert are one statement, which MikroORM's query builder cannot express.
 */
export async function claimDueExecutions(em: EntityManager, claim: Claim): Promise<string[]> {
  const rows = await em.fork().execute<{ execution_id: string }[]>(
    `WITH picked AS (
       SELECT m.execution_id, m.stream_version FROM onceport.execution_matches m
         LEFT JOIN onceport.reconcile_checks c ON c.execution_id = m.execution_id
       WHERE m.status IN ('dispatched', 'dispatched_unknown') AND (c.claimed_until IS NULL OR c.claimed_until <= now()) AND ${DUE_AT} <= now()
       ORDER BY ${DUE_AT}, m.accepted_at LIMIT ?
       FOR UPDATE OF m SKIP LOCKED)
     INSERT INTO onceport.reconcile_checks AS c (execution_id, stream_version, claimed_by, claimed_until)
       SELECT execution_id, stream_version, ?, now() + make_interval(secs => ?::double precision / 1000) FROM picked
     ON CONFLICT (execution_id) DO UPDATE SET claimed_by = excluded.claimed_by, claimed_until = excluded.claimed_until
       WHERE (c.claimed_until IS NULL OR c.claimed_until <= now())
         AND (c.next_check_at IS NULL OR c.next_check_at <= now() OR c.stream_version < excluded.stream_version)
     RETURNING c.execution_id`,
    [claim.limit, claim.claimant, claim.claimMs],
  );
  return rows.map((row) => row.execution_id);
}

/** Ends this replica's claim: look again at `atMs`, unless the execution moves past `version` first. */
export async function releaseWithNextCheck(
  em: EntityManager,
  executionId: string,
  claimant: string,
  version: number,
  atMs: number,
): Promise<void> {
  await em
    .fork()
    .nativeUpdate(
      ReconcileCheckEntity,
      { executionId, claimedBy: claimant },
      { streamVersion: version, nextCheckAt: new Date(atMs), claimedBy: null, claimedUntil: null },
    );
}

/** Forgets the check times of executions that are no longer unsettled (a replica died holding them). */
export async function forgetSettledChecks(em: EntityManager): Promise<void> {
  const fork = em.fork();
  const unsettled = fork
    .createQueryBuilder(ExecutionMatchEntity, 'm')
    .select('m.executionId')
    .where({ status: { $in: UNSETTLED } });
  await fork
    .createQueryBuilder(ReconcileCheckEntity)
    .delete()
    .where({ executionId: { $nin: unsettled.getKnexQuery() } })
    .execute();
}

/** Unfinished or undelivered executions whose correlation window has closed. */
export async function expiredWindows(em: EntityManager, limit: number): Promise<string[]> {
  const rows = await em
    .fork()
    .createQueryBuilder(ExecutionMatchEntity)
    .select('executionId')
    .where({ status: { $in: ['accepted', 'awaiting_approval', 'authorized', 'completed_result_not_delivered'] } })
    .andWhere('correlation_window_ends_at < now()')
    .orderBy({ correlationWindowEndsAt: 'asc' })
    .limit(limit)
    .execute<{ executionId: string }[]>('all');
  return rows.map((row) => row.executionId);
}

/** Executions waiting for a service to act (accepted → authorization, authorized → dispatcher). */
export async function waitingForAService(em: EntityManager, limit: number): Promise<string[]> {
  const rows = await em
    .fork()
    .createQueryBuilder(ExecutionMatchEntity)
    .select('executionId')
    .where({ status: { $in: ['accepted', 'authorized'] } })
    .andWhere('correlation_window_ends_at >= now()')
    .orderBy({ acceptedAt: 'asc' })
    .limit(limit)
    .execute<{ executionId: string }[]>('all');
  return rows.map((row) => row.executionId);
}
