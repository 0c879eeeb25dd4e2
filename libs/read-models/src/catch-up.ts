import { setTimeout } from 'node:timers/promises';
import { CheckpointMovedError, type Projection, ProjectionRunner, type QuarantineLog } from '@onceport/event-store';
import type { Pool } from 'pg';

/** A moved checkpoint clears as soon as the other replica's batch commits: a few short waits ride it out. */
const ATTEMPTS = 8;
const BACKOFF_MS = 50;

/**
 * Brings a read model up to what is committed now, before it is queried. A fresh runner each time
 * (a runner keeps its position in memory); a moved checkpoint means another replica is applying the
 * same events right now; its batch commits within moments, so a few short waits ride it out. Any other failure (an event the
 * projection cannot apply, until the quarantine takes it out of the way) is logged, and the query
 * answers from the read model as it stands. True when it is known to be current.
 */
export async function catchUpReadModel(pool: Pool, projection: Projection, log: QuarantineLog): Promise<boolean> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      await new ProjectionRunner(pool, projection, { log }).catchUp();
      return true;
    } catch (error) {
      if (error instanceof CheckpointMovedError) {
        await setTimeout(BACKOFF_MS * attempt);
        continue;
      }
      log('warn', `read model ${projection.name} could not catch up; answering from it as it stands`, { error: String(error) });
      return false;
    }
  }
  return false;
}
