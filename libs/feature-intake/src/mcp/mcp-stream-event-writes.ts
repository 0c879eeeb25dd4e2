import { NextBatch, type Queryable } from '@onceport/event-store';
import { DatabaseError } from 'pg';
import { MCP_STREAM_CHANNEL } from './mcp-stream-notices';

export interface StreamEventToStore {
  readonly streamId: string;
  readonly sessionId: string;
  /** The message as JSON text. */
  readonly message: string;
}

/**
 * Every SSE event this process stores, written in group commits: the SDK awaits each event's id
 * before it sends the event, and a call writes two (the stream's priming event and the answer), so
 * under load they were a fifth of an execution's commits, and a storm of identical calls queued
 * 2,000 single-row commits. One statement per run, each row with its id in the order asked (ids are
 * drawn in insertion order, and rows go in in the order given), and the resumption notice per row
 * (PostgreSQL sends one per session and transaction).
 */
export class McpStreamEventWrites {
  private readonly batches: NextBatch<StreamEventToStore, string>;

  constructor(db: Queryable) {
    // Only a refused value (data exception, constraint) is retried event by event: after a lost
    // connection the batch may have committed, and writing it again would store its events twice.
    this.batches = new NextBatch((events) => insertAll(db, events), 256, refusedValue);
  }

  /** Stores the event; resolves to its event id once it is committed. */
  store(event: StreamEventToStore): Promise<string> {
    return this.batches.submit(event);
  }
}

async function insertAll(db: Queryable, events: readonly StreamEventToStore[]): Promise<string[]> {
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

function refusedValue(error: unknown): boolean {
  return error instanceof DatabaseError && /^2[23]/.test(error.code ?? '');
}
