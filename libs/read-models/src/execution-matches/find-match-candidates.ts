import { type RetryCandidate } from '@onceport/domain';
import type { Queryable } from '@onceport/event-store';

export interface MatchLookup {
  /** The intent's fingerprint under every key of the ring (rotation). */
  readonly fingerprints: readonly string[];
  readonly actor: string;
  readonly intentScope: string;
  readonly limit?: number;
}

/** Prior executions of the same intent, newest first, as `matchRetry` takes them. */
export async function findMatchCandidates(db: Queryable, lookup: MatchLookup): Promise<RetryCandidate[]> {
  const result = await db.query<{
    execution_id: string;
    fingerprint: string;
    actor: string;
    intent_scope: string;
    status: RetryCandidate['status'];
    correlation_window_ends_at: Date;
    ledger_retention_ends_at: Date | null;
    accepted_at: Date;
  }>(
    `SELECT execution_id, fingerprint, actor, intent_scope, status, correlation_window_ends_at, ledger_retention_ends_at, accepted_at
     FROM onceport.execution_matches
     WHERE fingerprint = ANY($1) AND actor = $2 AND md5(intent_scope) = md5($3) AND intent_scope = $3
     ORDER BY accepted_at DESC LIMIT $4`,
    [lookup.fingerprints, lookup.actor, lookup.intentScope, lookup.limit ?? 20],
  );
  return result.rows.map((row) => ({
    executionId: row.execution_id,
    fingerprint: row.fingerprint as RetryCandidate['fingerprint'],
    actor: row.actor,
    intentScope: row.intent_scope,
    status: row.status,
    correlationWindowEndsAt: row.correlation_window_ends_at.toISOString(),
    ledgerRetentionEndsAt: row.ledger_retention_ends_at?.toISOString() ?? null,
    acceptedAt: row.accepted_at.toISOString(),
  }));
}
