import { DatabaseError } from 'pg';
import type { AppendResult, NewEvent, StoredEvent } from './event';
import { DuplicateEventError, WrongExpectedVersionError } from './errors';
import type { AppendOptions, EventStore, ReadAllOptions, StreamFrom } from './event-store.port';
import { markAppended, notifyAppended } from './appended-notice';
import { contentHash } from './hash-chain';
import { type ClientPool, type Queryable, inTransaction } from './queryable';
import { STORED_EVENT_COLUMNS, rowToStoredEvent, type StoredEventRow } from './stored-event-row';

const INSERT_EVENTS = `
INSERT INTO onceport.events
  (event_id, stream_id, stream_version, event_type, schema_version, data, metadata, recorded_at, content_hash)
SELECT e.event_id, $1, e.stream_version, e.event_type, e.schema_version, e.data, e.metadata, e.recorded_at, e.content_hash
FROM unnest($2::uuid[], $3::int[], $4::text[], $5::int[], $6::jsonb[], $7::jsonb[], $8::timestamptz[], $9::bytea[])
  WITH ORDINALITY AS e(event_id, stream_version, event_type, schema_version, data, metadata, recorded_at, content_hash, n)
ORDER BY e.n
RETURNING global_position::text AS global_position`;

const CURRENT_VERSION = `SELECT coalesce(max(stream_version), 0) AS version FROM onceport.events WHERE stream_id = $1`;

export class PostgresEventStore implements EventStore {
  constructor(
    private readonly db: Queryable,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    if (events.length === 0) throw new RangeError(`append to ${streamId}: no events given`);
    const db = options.tx ?? this.db;
    if (options.expectedVersion !== 'any') {
      const expected = options.expectedVersion === 'no_stream' ? 0 : options.expectedVersion;
      if (!Number.isInteger(expected) || expected < 0) throw new RangeError(`append to ${streamId}: bad expected version ${expected}`);
      return this.notifying(options.tx, () => this.insert(db, streamId, events, expected));
    }
    // Appends "wherever the stream ends" take turns on a per-stream advisory lock: optimistic
    // retries would make a herd of fifty writers cost seconds of failed inserts.
    const appendAtEnd = async (tx: Queryable): Promise<AppendResult> => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 7))', [streamId]);
      const current = await tx.query<{ version: number }>(CURRENT_VERSION, [streamId]);
      return this.insert(tx, streamId, events, current.rows[0]?.version ?? 0);
    };
    if (options.tx) return this.notifying(options.tx, () => appendAtEnd(options.tx as Queryable));
    if (!isClientPool(this.db)) return this.notifying(undefined, () => appendAtEnd(this.db));
    return this.notifying(undefined, () => inTransaction(this.db as ClientPool, appendAtEnd));
  }

  /**
   * Readers are woken after the commit, never from inside it (see notifyAppended): in the caller's
   * transaction, by `inTransaction` once it commits; otherwise right after this append committed.
   */
  private async notifying(tx: Queryable | undefined, append: () => Promise<AppendResult>): Promise<AppendResult> {
    const result = await append();
    if (tx) markAppended(tx);
    else notifyAppended(this.db);
    return result;
  }

  async readStream(streamId: string, fromVersion = 1): Promise<StoredEvent[]> {
    const result = await this.db.query<StoredEventRow>(
      `SELECT ${STORED_EVENT_COLUMNS} FROM onceport.events
       WHERE stream_id = $1 AND stream_version >= $2 ORDER BY stream_version`,
      [streamId, fromVersion],
    );
    return result.rows.map(rowToStoredEvent);
  }

  async readStreams(wanted: readonly StreamFrom[]): Promise<Map<string, StoredEvent[]>> {
    const byStream = new Map<string, StoredEvent[]>(wanted.map((w) => [w.streamId, []]));
    // A stream asked for twice would come back twice, interleaved.
    if (byStream.size !== wanted.length) throw new Error('readStreams: each stream may be asked for once');
    if (wanted.length === 0) return byStream;
    const result = await this.db.query<StoredEventRow>(
      `SELECT ${STORED_EVENT_COLUMNS}
         FROM unnest($1::text[], $2::int[]) AS wanted(wanted_stream, wanted_from)
         JOIN onceport.events ON stream_id = wanted_stream AND stream_version >= wanted_from
        ORDER BY stream_id, stream_version`,
      [wanted.map((w) => w.streamId), wanted.map((w) => w.fromVersion)],
    );
    for (const row of result.rows) byStream.get(row.stream_id)?.push(rowToStoredEvent(row));
    return byStream;
  }

  async readAll(options: ReadAllOptions = {}): Promise<StoredEvent[]> {
    const result = await this.db.query<StoredEventRow>(
      `SELECT ${STORED_EVENT_COLUMNS} FROM onceport.events
       WHERE global_position > $1 ORDER BY global_position LIMIT $2`,
      [String(options.after ?? 0n), options.limit ?? 1000],
    );
    return result.rows.map(rowToStoredEvent);
  }

  private async insert(db: Queryable, streamId: string, events: readonly NewEvent[], expected: number): Promise<AppendResult> {
    const recordedAt = this.clock();
    const versions = events.map((_, i) => expected + 1 + i);
    const hashes = events.map((event, i) => contentHash({ ...event, streamId, streamVersion: versions[i] ?? 0, recordedAt }));
    try {
      const result = await db.query<{ global_position: string }>(INSERT_EVENTS, [
        streamId,
        events.map((e) => e.eventId),
        versions,
        events.map((e) => e.type),
        events.map((e) => e.schemaVersion),
        events.map((e) => JSON.stringify(e.data)),
        events.map((e) => JSON.stringify(e.metadata)),
        events.map(() => recordedAt),
        hashes,
      ]);
      return {
        nextExpectedVersion: expected + events.length,
        globalPositions: result.rows.map((row) => BigInt(row.global_position)),
      };
    } catch (error) {
      throw translateAppendError(error, streamId, expected);
    }
  }
}

function translateAppendError(error: unknown, streamId: string, expected: number): unknown {
  if (!(error instanceof DatabaseError)) return error;
  if (error.code === '23505' && error.constraint === 'events_stream_version_unique') {
    return new WrongExpectedVersionError(streamId, expected, 'another writer appended first');
  }
  if (error.code === 'OP001') return new WrongExpectedVersionError(streamId, expected, error.message);
  if (error.code === '23505' && error.constraint === 'events_event_id_key') {
    return new DuplicateEventError(streamId, error.detail ?? error.message);
  }
  return error;
}

function isClientPool(db: Queryable): db is ClientPool {
  return typeof (db as Partial<ClientPool>).connect === 'function';
}
