import { CheckpointMovedError, ProjectionRunner } from '@onceport/event-store';
import { executionMatchesProjection } from '@onceport/read-models';
import { type Pool } from 'pg';
import { type Log } from '../shared/log';

/** Brings the executions read model up to what is committed now, before approvals are looked up in it. */
export interface ExecutionsReadModel {
  catchUp(): Promise<void>;
}

const ATTEMPTS = 3;

/**
 * Catches the read model up with a fresh runner each time: a runner keeps its position in memory,
 * and one that is not the leader would otherwise start from where it stood last and be refused. A
 * refusal means another replica is applying the same events right now; after a few, the lookup goes
 * ahead (it reads the stream itself for every hit, so the worst is a request shown a moment late).
 *
 * A catch-up that fails otherwise (an event the projection cannot apply, until the quarantine takes
 * it out of the way) must not take the approvals list and the expiry sweep down with it: it is
 * logged, and the lookup goes ahead on the read model as it stands.
 */
export function executionsReadModel(pool: Pool, log: Log): ExecutionsReadModel {
  return {
    async catchUp() {
      for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
        try {
          await new ProjectionRunner(pool, executionMatchesProjection, { log }).catchUp();
          return;
        } catch (error) {
          if (error instanceof CheckpointMovedError) continue;
          log('warn', 'executions read model could not catch up; answering from it as it stands', { error: String(error) });
          return;
        }
      }
    },
  };
}
