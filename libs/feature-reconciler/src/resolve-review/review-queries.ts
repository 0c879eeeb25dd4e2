import type { EntityManager } from '@mikro-orm/postgresql';
import { CheckpointMovedError, ProjectionRunner } from '@onceport/event-store';
import { ExecutionMatchEntity, executionMatchesProjection } from '@onceport/read-models';
import { serviceLog } from '@onceport/service-kit';
import type { Pool } from 'pg';

/**
 * Applies what is committed now to the read model before a list, so a review settled a moment ago
 * is listed. A fresh runner each time: one that is not the leader would start from a stale position
 * and be refused. A refusal means another replica is applying the same events; after a few, the list
 * goes ahead (each hit is read from its stream anyway).
 */
export async function catchUpReadModel(pool: Pool): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      await new ProjectionRunner(pool, executionMatchesProjection).catchUp();
      return;
    } catch (error) {
      if (error instanceof CheckpointMovedError) continue;
      // Stuck on an event it cannot apply (until the quarantine takes it out of the way): list what the read model shows.
      serviceLog('reconciler')('warn', 'executions read model could not catch up; listing from it as it stands', { error: String(error) });
      return;
    }
  }
}

/**
 * Executions the read model last saw in `needs_review`, longest waiting first. The read model finds
 * them by index; each is then read from the store, so a list never shows one a reviewer has just
 * resolved.
 */
export async function executionsInReview(em: EntityManager, limit: number): Promise<string[]> {
  const rows = await em
    .fork()
    .find(ExecutionMatchEntity, { status: 'needs_review' }, { fields: ['executionId'], orderBy: { acceptedAt: 'asc' }, limit });
  return rows.map((row) => row.executionId);
}
