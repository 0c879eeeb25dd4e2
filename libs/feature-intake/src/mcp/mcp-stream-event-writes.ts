import { NextBatch, type Queryable } from '@onceport/event-store';
import { DatabaseError } from 'pg';
import { McpStreamEventIds } from './mcp-stream-event-ids';
import { MCP_STREAM_CHANNEL } from './mcp-stream-notices';

export interface StreamEventToStore {
  readonly streamId: string;
  readonly sessionId: string;
  /** The message as JSON text. */
  readonly message: string;
}

/** Called when a stream event whose id was already sent could not be stored (its stream cannot be resumed past it). */
export type LostStreamEvent = (error: unknown, event: StreamEventToStore) => void;

/**
 * Every SSE event this process stores, written in group commits: the SDK awaits each event's id
 * before it sends the event, and a call writes two (the stream's priming event and the answer), so
 * under load they were a fifth of an execution's commits, and a storm of identical calls queued
 * 2,000 single-row commits. One statement per run, each row with its id in the order asked, and
 * the resumption notice per row (PostgreSQL sends one per session and transaction).
 */
export class McpStreamEventWrites {
  private readonly drawn: NextBatch<StreamEventToStore, string>;
  private readonly ahead: NextBatch<StreamEventToStore & { readonly eventId: bigint }, string>;
  private readonly ids: McpStreamEventIds;
  /** Each write not settled yet, with its session. */
  private readonly unsettled = new Map<Promise<unknown>, string>();

  constructor(
    db: Queryable,
    private readonly onLost: LostStreamEvent = () => undefined,
  ) {
    // Only a refused value (data exception, constraint) is retried event by event: after a lost
    // connection the batch may have committed, and writing it again would store its events twice.
    this.drawn = new NextBatch((events) => insertDrawn(db, events), 256, refusedValue);
    this.ahead = new NextBatch((events) => insertAhead(db, events), 256, refusedValue);
    this.ids = new McpStreamEventIds(db);
  }

  /** Stores the event under an id the column draws; resolves to it once it is committed (ids in commit order). */
  store(event: StreamEventToStore): Promise<string> {
    return this.track(this.drawn.submit(event), event.sessionId);
  }

  /**
   * Stores the event under an id drawn in this process and resolves to it at once: the commit
   * follows, and a failed one is reported to `onLost`. For the events of a stream this process
   * alone writes (a request's stream): their ids rise, and their rows commit, in the order asked.
   * A resumption that asks for an id not committed yet waits for it (see `resumeStream`).
   */
  async storeAhead(event: StreamEventToStore): Promise<string> {
    let id = this.ids.takeNow();
    while (id === null) {
      await this.ids.ready();
      id = this.ids.takeNow();
    }
    // Taken and queued in one synchronous step: rows go in in the order of their ids.
    this.track(this.ahead.submit({ ...event, eventId: id }), event.sessionId).catch((error: unknown) => this.onLost(error, event));
    return id.toString();
  }

  /** Resolves once every write asked for so far has committed or failed (before the pool closes). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.unsettled.keys()]);
  }

  /** Resolves once the session's writes asked for so far have committed or failed, or after `withinMs` at the latest. */
  async settledFor(sessionId: string, withinMs: number): Promise<void> {
    const writes = [...this.unsettled].filter(([, session]) => session === sessionId).map(([write]) => write);
    if (writes.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, withinMs);
    });
    try {
      await Promise.race([Promise.allSettled(writes), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private track<T>(write: Promise<T>, sessionId: string): Promise<T> {
    this.unsettled.set(write, sessionId);
    const forget = () => this.unsettled.delete(write);
    write.then(forget, forget);
    return write;
  }
}

async function insertDrawn(db: Queryable, events: readonly StreamEventToStore[]): Promise<string[]> {
  const result = await db.query<{ event_id: string }>(
    `WITH stored AS (
       INSERT INTO onceport.mcp_stream_events (stream_id, session_id, message)
       SELECT stream_id, session_id, message
         FROM unnest($1::text[], $2::text[], $3::jsonb[]) WITH ORDINALITY AS given(stream_id, session_id, message, n)
        ORDER BY n
       RETURNING event_id, session_id
     )
     SELECT event_id::text AS event_id, pg_notify('${MCP_STREAM_CHANNEL}', session_id) FROM stored ORDER BY stored.event_id`,
    [events.map((event) => event.streamId), events.map((event) => event.sessionId), events.map((event) => event.message)],
  );
  return result.rows.map((row) => row.event_id);
}

async function insertAhead(db: Queryable, events: readonly (StreamEventToStore & { readonly eventId: bigint })[]): Promise<string[]> {
  await db.query(
    `WITH stored AS (
       INSERT INTO onceport.mcp_stream_events (event_id, stream_id, session_id, message) OVERRIDING SYSTEM VALUE
       SELECT event_id, stream_id, session_id, message
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::jsonb[]) AS given(event_id, stream_id, session_id, message)
       RETURNING event_id, session_id
     )
     SELECT event_id::text AS event_id, pg_notify('${MCP_STREAM_CHANNEL}', session_id) FROM stored ORDER BY stored.event_id`,
    [
      events.map((event) => event.eventId.toString()),
      events.map((event) => event.streamId),
      events.map((event) => event.sessionId),
      events.map((event) => event.message),
    ],
  );
  return events.map((event) => event.eventId.toString());
}

function refusedValue(error: unknown): boolean {
  return error instanceof DatabaseError && /^2[23]/.test(error.code ?? '');
}
