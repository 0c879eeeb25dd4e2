import { executionStreamId } from '@onceport/contracts';
import { type Queryable, type StoredEvent, parseExportLine, readLines } from '@onceport/event-store';
import { type LaterExecution, type MatchKeys, type StoredFields, type TracedEvent, laterExecutionOf, toTracedEvent } from './traced-event';

export interface LoadedTrace {
  readonly events: readonly TracedEvent[];
  readonly laterExecutions: readonly LaterExecution[];
  /** How many events the stream holds: more than `events.length` when a `maxEvents` cap cut the timeline. */
  readonly eventCount: number;
}

export interface LoadTraceOptions {
  /** Read at most this many events of the stream (the first ones, in stream order); default all. */
  readonly maxEvents?: number;
}

/** Later executions of the same intent are capped: an operator's question, not an export. */
export const MAX_LATER_EXECUTIONS = 50;

interface EventRow {
  stream_id: string;
  position: string;
  stream_version: number;
  recorded_at: Date;
  event_id: string;
  event_type: string;
  schema_version: number;
  data: unknown;
  metadata: unknown;
}

const COLUMNS = `stream_id, global_position::text AS position, stream_version, recorded_at, event_id, event_type, schema_version, data, metadata`;

function storedFieldsOf(row: EventRow): StoredFields & { readonly streamId: string } {
  return {
    streamId: row.stream_id,
    globalPosition: BigInt(row.position),
    streamVersion: row.stream_version,
    recordedAt: row.recorded_at,
    eventId: row.event_id,
    type: row.event_type,
    schemaVersion: row.schema_version,
    data: row.data,
    metadata: row.metadata,
  };
}

/**
 * The execution's stream and later executions of the same intent, from the event store.
 *
 * @example const trace = await loadTraceFromDatabase(pool, 'exe_01…', { maxEvents: 500 });
 */
export async function loadTraceFromDatabase(db: Queryable, executionId: string, options: LoadTraceOptions = {}): Promise<LoadedTrace> {
  const streamId = executionStreamId(executionId);
  const limit = options.maxEvents === undefined ? '' : `LIMIT ${Math.max(1, Math.floor(options.maxEvents))}`;
  const read = await db.query<EventRow>(`SELECT ${COLUMNS} FROM onceport.events WHERE stream_id = $1 ORDER BY stream_version ${limit}`, [
    streamId,
  ]);
  const stored = read.rows.map(storedFieldsOf);
  const events = stored.map(toTracedEvent);
  const eventCount = limit === '' || stored.length < (options.maxEvents ?? 0) ? stored.length : await countEvents(db, streamId);
  const first = stored[0];
  const keys = matchKeysOf(first);
  if (!keys || !first) return { events, laterExecutions: [], eventCount };
  // The events table is the authority; a scan over ExecutionAccepted is fine for an operator's question.
  const later = await db.query<EventRow>(
    `SELECT ${COLUMNS}
     FROM onceport.events
     WHERE event_type = 'ExecutionAccepted' AND data->>'fingerprint' = $1 AND data->>'actor' = $2 AND data->>'intentScope' = $3
       AND global_position > $4 AND stream_id <> $5
     ORDER BY global_position LIMIT ${MAX_LATER_EXECUTIONS}`,
    [keys.fingerprint, keys.actor, keys.intentScope, String(first.globalPosition), streamId],
  );
  const laterExecutions = later.rows
    .map((row) => laterExecutionOf(storedFieldsOf(row), keys))
    .filter((later): later is LaterExecution => later !== null);
  return { events, laterExecutions, eventCount };
}

async function countEvents(db: Queryable, streamId: string): Promise<number> {
  const counted = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM onceport.events WHERE stream_id = $1`, [streamId]);
  return Number(counted.rows[0]?.n ?? 0);
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
    } else if (keys && laterExecutions.length < MAX_LATER_EXECUTIONS) {
      const later = laterExecutionOf(stored, keys);
      if (later) laterExecutions.push(later);
    }
  }
  events.sort((a, b) => a.streamVersion - b.streamVersion);
  return { events, laterExecutions, eventCount: events.length };
}

function matchKeysOf(first: Pick<StoredEvent, 'type' | 'data'> | Pick<StoredFields, 'type' | 'data'> | undefined): MatchKeys | null {
  if (!first || first.type !== 'ExecutionAccepted' || typeof first.data !== 'object' || first.data === null) return null;
  const { fingerprint, actor, intentScope } = first.data as Record<string, unknown>;
  if (typeof fingerprint !== 'string' || typeof actor !== 'string' || typeof intentScope !== 'string') return null;
  return { fingerprint, actor, intentScope };
}
