import { executionIdOfStream, parseEvent } from '@onceport/contracts';
import { type ExecutionState, foldEvents } from '@onceport/domain';
import type { Pool } from 'pg';

/** States an execution is not allowed to stay in once faults have healed. */
export const UNSETTLED_STATUSES: ReadonlySet<string> = new Set(['accepted', 'authorized', 'dispatched', 'dispatched_unknown']);

/** Events that settle an execution (a `not_applied` settlement does not: the execution goes on). */
const SETTLING_EVENTS: ReadonlySet<string> = new Set(['OutcomeObserved', 'OutcomeSettled', 'ExecutionDenied', 'DispatchFailedBeforeSend']);

export interface ExecutionOutcome {
  readonly state: ExecutionState;
  /** When its first event was recorded (ms since the epoch). */
  readonly acceptedAt: number;
  /** When the event that settled it was recorded, or null while it is unsettled. */
  readonly settledAt: number | null;
}

/** Every execution in the store, folded from its events as the services fold them, by execution id. */
export async function readExecutionOutcomes(pool: Pool): Promise<Map<string, ExecutionOutcome>> {
  const rows = await pool.query<{
    event_id: string;
    stream_id: string;
    event_type: string;
    schema_version: number;
    data: Record<string, unknown>;
    metadata: Record<string, unknown>;
    recorded_at: Date;
  }>(
    `SELECT event_id, stream_id, event_type, schema_version, data, metadata, recorded_at FROM onceport.events WHERE stream_id LIKE 'execution-%' ORDER BY stream_id, stream_version`,
  );
  const byStream = new Map<string, (typeof rows.rows)[number][]>();
  for (const row of rows.rows) {
    const events = byStream.get(row.stream_id);
    if (events) events.push(row);
    else byStream.set(row.stream_id, [row]);
  }
  const outcomes = new Map<string, ExecutionOutcome>();
  for (const [stream, events] of byStream) {
    const parsed = events.map((e) =>
      parseEvent({ type: e.event_type, schemaVersion: e.schema_version, data: e.data, metadata: { ...e.metadata, eventId: e.event_id } }),
    );
    const settled = events.find(
      (e) => SETTLING_EVENTS.has(e.event_type) && !(e.event_type === 'OutcomeSettled' && e.data['settlement'] === 'not_applied'),
    );
    outcomes.set(executionIdOfStream(stream) ?? stream, {
      state: foldEvents(parsed),
      acceptedAt: events[0]?.recorded_at.getTime() ?? 0,
      settledAt: settled ? settled.recorded_at.getTime() : null,
    });
  }
  return outcomes;
}
