import { executionStreamId } from '@onceport/contracts';
import { type Queryable, type StoredEvent, PostgresEventStore, parseExportLine, readLines } from '@onceport/event-store';
import { type LaterExecution, type MatchKeys, type TracedEvent, laterExecutionOf, toTracedEvent } from './traced-event';

export interface LoadedTrace {
  readonly events: readonly TracedEvent[];
  readonly laterExecutions: readonly LaterExecution[];
}

const MAX_LATER = 50;

/** The execution's stream and later executions of the same intent, from the event store. */
export async function loadTraceFromDatabase(db: Queryable, executionId: string): Promise<LoadedTrace> {
  const stored = await new PostgresEventStore(db).readStream(executionStreamId(executionId));
  const events = stored.map(toTracedEvent);
  const keys = matchKeysOf(stored[0]);
  if (!keys || !stored[0]) return { events, laterExecutions: [] };
  // The events table is the authority; a scan over ExecutionAccepted is fine for an operator's question.
  const later = await db.query<{
    stream_id: string;
    position: string;
    stream_version: number;
    recorded_at: Date;
    event_id: string;
    schema_version: number;
    data: unknown;
    metadata: unknown;
  }>(
    `SELECT stream_id, global_position::text AS position, stream_version, recorded_at, event_id, schema_version, data, metadata
     FROM onceport.events
     WHERE event_type = 'ExecutionAccepted' AND data->>'fingerprint' = $1 AND data->>'actor' = $2 AND data->>'intentScope' = $3
       AND global_position > $4 AND stream_id <> $5
     ORDER BY global_position LIMIT ${MAX_LATER}`,
    [keys.fingerprint, keys.actor, keys.intentScope, String(stored[0].globalPosition), stored[0].streamId],
  );
  const laterExecutions = later.rows
    .map((row) =>
      laterExecutionOf(
        {
          ...row,
          streamId: row.stream_id,
          globalPosition: BigInt(row.position),
          streamVersion: row.stream_version,
          recordedAt: row.recorded_at,
          eventId: row.event_id,
          type: 'ExecutionAccepted',
          schemaVersion: row.schema_version,
        },
        keys,
      ),
    )
    .filter((later): later is LaterExecution => later !== null);
  return { events, laterExecutions };
}

/** The same, from an audit export: its lines are in global order, so later executions come after the traced one's acceptance. */
export async function loadTraceFromFile(path: string, executionId: string): Promise<LoadedTrace> {
  const streamId = executionStreamId(executionId);
  const events: TracedEvent[] = [];
  const laterExecutions: LaterExecution[] = [];
  let keys: MatchKeys | null = null;
  for await (const text of readLines(path)) {
    if (text.trim() === '') continue;
    const line = parseExportLine(text);
    if (line.kind !== 'event') continue;
    const stored = line.event;
    if (stored.streamId === streamId) {
      events.push(toTracedEvent(stored));
      keys ??= matchKeysOf(stored);
    } else if (keys && laterExecutions.length < MAX_LATER) {
      const later = laterExecutionOf(stored, keys);
      if (later) laterExecutions.push(later);
    }
  }
  events.sort((a, b) => a.streamVersion - b.streamVersion);
  return { events, laterExecutions };
}

function matchKeysOf(first: Pick<StoredEvent, 'type' | 'data'> | undefined): MatchKeys | null {
  if (!first || first.type !== 'ExecutionAccepted') return null;
  const { fingerprint, actor, intentScope } = first.data;
  if (typeof fingerprint !== 'string' || typeof actor !== 'string' || typeof intentScope !== 'string') return null;
  return { fingerprint, actor, intentScope };
}
