import type { EntityManager } from '@mikro-orm/postgresql';
import { type RetryCandidate } from '@onceport/domain';
import { ExecutionMatchEntity } from './execution-match.entity';

export interface MatchLookup {
  /** The intent's fingerprint under every key of the ring (rotation). */
  readonly fingerprints: readonly string[];
  readonly actor: string;
  readonly intentScope: string;
  readonly limit?: number;
}

/**
 * Prior executions of the same intent, newest first, as `matchRetry` takes them: one statement.
 * `md5(intent_scope) = md5(?)` lets the digest index find them (migration 101); the equality on the
 * scope itself keeps a digest collision out.
 */
export async function findMatchCandidates(em: EntityManager, lookup: MatchLookup): Promise<RetryCandidate[]> {
  const rows = await em
    .fork()
    .createQueryBuilder(ExecutionMatchEntity)
    .select([
      'executionId',
      'fingerprint',
      'actor',
      'intentScope',
      'status',
      'correlationWindowEndsAt',
      'ledgerRetentionEndsAt',
      'acceptedAt',
    ])
    .where({ fingerprint: { $in: [...lookup.fingerprints] }, actor: lookup.actor })
    .andWhere('md5(intent_scope) = md5(?)', [lookup.intentScope])
    .andWhere({ intentScope: lookup.intentScope })
    .orderBy({ acceptedAt: 'desc' })
    .limit(lookup.limit ?? 20)
    .getResultList();
  return rows.map((row) => ({
    executionId: row.executionId,
    fingerprint: row.fingerprint as RetryCandidate['fingerprint'],
    actor: row.actor,
    intentScope: row.intentScope,
    status: row.status as RetryCandidate['status'],
    correlationWindowEndsAt: row.correlationWindowEndsAt.toISOString(),
    ledgerRetentionEndsAt: row.ledgerRetentionEndsAt?.toISOString() ?? null,
    acceptedAt: row.acceptedAt.toISOString(),
  }));
}
