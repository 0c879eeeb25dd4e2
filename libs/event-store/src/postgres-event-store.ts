import { DatabaseError } from 'pg';
import type { AppendResult, CommittedEvent, NewEvent, StoredEvent } from './event';
import { DuplicateEventError, WrongExpectedVersionError } from './errors';
import type { AppendGuard, AppendOptions, EventStore, ReadAllOptions, StreamAppend, StreamFrom } from './event-store.port';
import { markAppended, notifyAppended } from './appended-notice';
import { contentHash } from './hash-chain';
import { type ClientPool, type Queryable, inTransaction } from './queryable';
import { STORED_EVENT_COLUMNS, rowToStoredEvent, type StoredEventRow } from './stored-event-row';

/**
 * Inserts the rows of one or more streams, in the order given (a stream's versions ascending: the
 * chain trigger links each row to the one before it). A guard's values come first ($1…), the rows'
 * arrays after them; with a guard, nothing is inserted unless it returned a row.
 */
function insertEventsSql(guard: AppendGuard | undefined): string {
  const p = (n: number): string => `$${(guard?.values.length ?? 0) + n}`;
  return `${guard ? `WITH guard AS (${guard.text})\n` : ''}INSERT INTO onceport.events
  (event_id, stream_id, stream_version, event_type, schema_version, data, metadata, recorded_at, content_hash)
SELECT e.event_id, e.stream_id, e.stream_version, e.event_type, e.schema_version, e.data, e.metadata, e.recorded_at, e.content_hash
FROM unnest(${p(1)}::uuid[], ${p(2)}::text[], ${p(3)}::int[], ${p(4)}::text[], ${p(5)}::int[], ${p(6)}::jsonb[], ${p(7)}::jsonb[], ${p(8)}::timestamptz[], ${p(9)}::bytea[])
  WITH ORDINALITY AS e(event_id, stream_id, stream_version, event_type, schema_version, data, metadata, recorded_at, content_hash, n)
${guard ? 'WHERE EXISTS (SELECT 1 FROM guard)\n' : ''}ORDER BY e.n
RETURNING global_position::text AS global_position`;
}

const INSERT_EVENTS = insertEventsSql(undefined);

const CURRENT_VERSION = `SELECT coalesce(max(stream_version), 0) AS version FROM onceport.events WHERE stream_id = $1`;

/**
 * Told of events right after they committed: on the store's own pool, or in a caller's transaction
 * run by `inTransaction` once it commits (a transaction committed otherwise leaves them to the relay
 * and the tails). It must not throw or wait.
 */
export type OnCommitted = (events: readonly CommittedEvent[]) => void;

export class PostgresEventStore implements EventStore {
  constructor(
    private readonly db: Queryable,
    private readonly clock: () => Date = () => new Date(),
    private readonly onCommitted?: OnCommitted,
  ) {}

  async append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    if (events.length === 0) throw new RangeError(`append to ${streamId}: no events given`);
    const db = options.tx ?? this.db;
    if (options.expectedVersion !== 'any') {
      const expected = options.expectedVersion === 'no_stream' ? 0 : options.expectedVersion;
      if (!Number.isInteger(expected) || expected < 0) throw new RangeError(`append to ${streamId}: bad expected version ${expected}`);
      return this.notifying(options.tx, () => this.insert(db, streamId, events, expected)).then(withoutRows);
    }
    // Appends "wherever the stream ends" take turns on a per-stream advisory lock: optimistic
    // retries would make a herd of fifty writers cost seconds of failed inserts.
    const appendAtEnd = async (tx: Queryable): Promise<Inserted> => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 7))', [streamId]);
      const current = await tx.query<{ version: number }>(CURRENT_VERSION, [streamId]);
      return this.insert(tx, streamId, events, current.rows[0]?.version ?? 0);
    };
    if (options.tx) return this.notifying(options.tx, () => appendAtEnd(options.tx as Queryable)).then(withoutRows);
    if (!isClientPool(this.db)) return this.notifying(undefined, () => appendAtEnd(this.db)).then(withoutRows);
    return this.notifying(undefined, () => inTransaction(this.db as ClientPool, appendAtEnd)).then(withoutRows);
  }

  async appendTogether(appends: readonly StreamAppend[], onlyIf?: AppendGuard): Promise<boolean> {
    for (const { streamId, events, expectedVersion } of appends) {
      if (events.length === 0) throw new RangeError(`append to ${streamId}: no events given`);
      if (!Number.isInteger(expectedVersion) || expectedVersion < 0)
        throw new RangeError(`append to ${streamId}: bad expected version ${expectedVersion}`);
    }
    if (new Set(appends.map((a) => a.streamId)).size !== appends.length) throw new Error('appendTogether: each stream may be given once');
    if (appends.length === 0) return true;
    // One statement commits alone: atomic without a transaction (and its BEGIN and COMMIT round trips).
    const inserted = await this.notifying(undefined, async () => ({ rows: await this.insertRows(this.db, appends, onlyIf) }));
    return inserted.rows.length > 0;
  }

  /**
   * Readers are woken after the commit, never from inside it (see notifyAppended): in the caller's
   * transaction, by `inTransaction` once it commits; otherwise right after this append committed.
   */
  private async notifying<T extends { readonly rows: readonly CommittedEvent[] }>(
    tx: Queryable | undefined,
    append: () => Promise<T>,
  ): Promise<T> {
    const result = await append();
    if (tx) markAppended(tx, () => this.tellCommitted(result.rows));
    else {
      notifyAppended(this.db);
      this.tellCommitted(result.rows);
    }
    return result;
  }

  private tellCommitted(rows: readonly CommittedEvent[]): void {
    if (!this.onCommitted || rows.length === 0) return;
    try {
      this.onCommitted(rows);
    } catch {
      // Committed either way: whoever listens finds the events by the store's tail too.
    }
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
    // Each stream is a lateral look into the stream index. A plain join lets a generic plan made on a fresh,
    // small store hash the whole store instead, and keep doing so as it grows (store-query-plans.int.spec.ts).
    const result = await this.db.query<StoredEventRow>(
      `SELECT e.* FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS wanted(wanted_stream, wanted_from, n)
         CROSS JOIN LATERAL (
           SELECT ${STORED_EVENT_COLUMNS} FROM onceport.events
            WHERE stream_id = wanted.wanted_stream AND stream_version >= wanted.wanted_from
            ORDER BY stream_version) AS e
        ORDER BY wanted.n, e.stream_version`,
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

  private async insert(db: Queryable, streamId: string, events: readonly NewEvent[], expected: number): Promise<Inserted> {
    const rows = await this.insertRows(db, [{ streamId, events, expectedVersion: expected }], undefined);
    return { nextExpectedVersion: expected + events.length, globalPositions: rows.map((row) => row.globalPosition), rows };
  }

  /** Inserts every append's events (none if the guard refused) and returns them where they landed. */
  private async insertRows(db: Queryable, appends: readonly StreamAppend[], guard: AppendGuard | undefined): Promise<CommittedEvent[]> {
    const recordedAt = this.clock();
    const rows = appends.flatMap(({ streamId, events, expectedVersion }) =>
      events.map((event, i) => ({ event, streamId, streamVersion: expectedVersion + 1 + i })),
    );
    try {
      const result = await db.query<{ global_position: string }>(guard ? insertEventsSql(guard) : INSERT_EVENTS, [
        ...(guard?.values ?? []),
        rows.map((r) => r.event.eventId),
        rows.map((r) => r.streamId),
        rows.map((r) => r.streamVersion),
        rows.map((r) => r.event.type),
        rows.map((r) => r.event.schemaVersion),
        rows.map((r) => JSON.stringify(r.event.data)),
        rows.map((r) => JSON.stringify(r.event.metadata)),
        rows.map(() => recordedAt),
        rows.map((r) => contentHash({ ...r.event, streamId: r.streamId, streamVersion: r.streamVersion, recordedAt })),
      ]);
      return result.rows.map((row, i) => {
        const { event, streamId, streamVersion } = rows[i] as (typeof rows)[number];
        return { ...event, streamId, streamVersion, globalPosition: BigInt(row.global_position), recordedAt };
      });
    } catch (error) {
      throw translateAppendError(error, appends);
    }
  }
}

/** The database's refusal as the store's error, naming the stream it was about (the first given, if it does not say). */
function translateAppendError(error: unknown, appends: readonly StreamAppend[]): unknown {
  if (!(error instanceof DatabaseError)) return error;
  const said = `${error.detail ?? ''} ${error.message}`;
  const about = appends.find((a) => said.includes(a.streamId)) ?? appends[0];
  const streamId = about?.streamId ?? '(none)';
  const expected = about?.expectedVersion ?? 0;
  if (error.code === '23505' && error.constraint === 'events_stream_version_unique') {
    return new WrongExpectedVersionError(streamId, expected, 'another writer appended first');
  }
  if (error.code === 'OP001') return new WrongExpectedVersionError(streamId, expected, error.message);
  if (error.code === '23505' && error.constraint === 'events_event_id_key') {
    return new DuplicateEventError(streamId, error.detail ?? error.message);
  }
  return error;
}

/** An append's result and the rows it wrote (for `onCommitted`). */
interface Inserted extends AppendResult {
  readonly rows: readonly CommittedEvent[];
}

function withoutRows({ nextExpectedVersion, globalPositions }: Inserted): AppendResult {
  return { nextExpectedVersion, globalPositions };
}

function isClientPool(db: Queryable): db is ClientPool {
  return typeof (db as Partial<ClientPool>).connect === 'function';
}
