import { parseEvent, parseRunEvent, runIdOfStream } from '@onceport/contracts';
import type { Projection, Queryable, StoredEvent } from '@onceport/event-store';
import { RunsListingMigration } from './runs-listing.migration';
import { RunsMigration } from './runs.migration';

const CALL_EVENTS = new Set(['ExecutionAccepted', 'RetryAttached']);

/**
 * Runs from their streams, and run calls from the execution events that name a run: an acceptance
 * is a call that created its execution, an attached retry one that asked again for an earlier one.
 * Idempotent: a call row is keyed by its event id, a run row moves only forward.
 */
export const runsProjection: Projection = {
  name: 'runs',
  migrations: [RunsMigration, RunsListingMigration],

  async apply(events: readonly StoredEvent[], tx: Queryable): Promise<void> {
    for (const event of events) {
      if (runIdOfStream(event.streamId) !== null) await applyRunEvent(event, tx);
      else if (CALL_EVENTS.has(event.type)) await applyCall(event, tx);
    }
  },

  async reset(tx: Queryable): Promise<void> {
    await tx.query('DELETE FROM onceport.run_calls');
    await tx.query('DELETE FROM onceport.runs');
  },
};

function envelopeOf(event: StoredEvent): unknown {
  return {
    type: event.type,
    schemaVersion: event.schemaVersion,
    data: event.data,
    metadata: { ...event.metadata, eventId: event.eventId },
  };
}

async function applyRunEvent(stored: StoredEvent, tx: Queryable): Promise<void> {
  const event = parseRunEvent(envelopeOf(stored));
  if (event.type === 'RunOpened') {
    const { runId, actor, trigger, openedAt } = event.data;
    await tx.query(
      `INSERT INTO onceport.runs (run_id, actor, trigger, opened_at, attempts, last_attempt_at) VALUES ($1, $2, $3, $4, 1, $4)
       ON CONFLICT (run_id) DO NOTHING`,
      [runId, actor, trigger, openedAt],
    );
    return;
  }
  await tx.query(`UPDATE onceport.runs SET attempts = $2, last_attempt_at = $3 WHERE run_id = $1 AND attempts < $2`, [
    event.data.runId,
    event.data.attempt,
    event.data.startedAt,
  ]);
}

async function applyCall(stored: StoredEvent, tx: Queryable): Promise<void> {
  const event = parseEvent(envelopeOf(stored));
  if (event.type !== 'ExecutionAccepted' && event.type !== 'RetryAttached') return;
  const run = event.data.run;
  if (!run) return;
  const [relation, at] = event.type === 'ExecutionAccepted' ? ['created', event.data.acceptedAt] : ['asked_again', event.data.attachedAt];
  await tx.query(
    `INSERT INTO onceport.run_calls (event_id, run_id, attempt, execution_id, relation, called_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (event_id) DO NOTHING`,
    [stored.eventId, run.runId, run.attempt, event.data.executionId, relation, at],
  );
}
