import type { JSONRPCMessage, EventStore as McpEventStore, RequestId } from '@modelcontextprotocol/server';
import type { Queryable } from '@onceport/event-store';
import { McpStreamEventWrites } from './mcp-stream-event-writes';

/** The SDK's id for a session's standalone GET stream: it never completes, and any replica may write to it. */
export const STANDALONE_STREAM = '_GET_stream';

/** Where the priming event of a request stream keeps the ids of the requests the stream answers. */
const AWAITS = 'onceport/awaits';

export interface StoredStreamEvent {
  readonly eventId: string;
  readonly message: unknown;
}

/**
 * The SSE events of one MCP session, in PostgreSQL. Bound to the session it serves: a client can
 * only replay its own streams, whatever event id it sends.
 */
export class PgMcpEventStore implements McpEventStore {
  constructor(
    private readonly db: Queryable,
    private readonly sessionId: () => string | undefined,
    /** The JSON-RPC requests of the POST this store's transport serves (none for GET and DELETE). */
    private readonly awaitedRequests: readonly RequestId[] = [],
    /** The process's group commits of stream events (a store of its own writes alone). */
    private readonly writes: McpStreamEventWrites = new McpStreamEventWrites(db),
  ) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    // The SDK primes a request stream with an empty message. We keep there which requests the stream
    // answers: a replica resuming the stream knows from it when the stream is complete.
    const stored = isPriming(message) ? { [AWAITS]: this.awaitedRequests } : message;
    // Committed with the notice a stream resumed on another replica waits for instead of polling the
    // table (sent at the commit, so the row is there when it is heard).
    const event = { streamId, sessionId: this.sessionId() ?? '', message: JSON.stringify(stored) };
    // A request's stream is this process's alone: its events are sent without waiting for their
    // commit (neither the call's handling for its priming event, nor the answer for its own). The
    // standalone stream's ids are drawn at the commit, in the order replicas commit them.
    return streamId === STANDALONE_STREAM ? this.writes.store(event) : this.writes.storeAhead(event);
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return (await this.find(eventId))?.stream_id;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const anchor = await this.find(lastEventId);
    if (!anchor) throw new Error('unknown Last-Event-ID for this session');
    for (const event of await this.eventsAfter(anchor.stream_id, lastEventId)) {
      if (isMessage(event.message)) await send(event.eventId, event.message as JSONRPCMessage);
    }
    return anchor.stream_id;
  }

  /** Every event of one of this session's streams after `afterEventId` ('0': all), oldest first, priming events included. */
  async eventsAfter(streamId: string, afterEventId: string): Promise<StoredStreamEvent[]> {
    const later = await this.db.query<{ event_id: string; message: unknown }>(
      `SELECT event_id::text AS event_id, message FROM onceport.mcp_stream_events
       WHERE stream_id = $1 AND session_id = $2 AND event_id > $3 ORDER BY event_id`,
      [streamId, this.sessionId() ?? '', afterEventId],
    );
    return later.rows.map((row) => ({ eventId: row.event_id, message: row.message }));
  }

  private async find(eventId: string): Promise<{ stream_id: string } | undefined> {
    if (!isStreamEventId(eventId)) return undefined;
    const result = await this.db.query<{ stream_id: string }>(
      'SELECT stream_id FROM onceport.mcp_stream_events WHERE event_id = $1 AND session_id = $2',
      [eventId, this.sessionId() ?? ''],
    );
    return result.rows[0];
  }
}

/** Whether `text` can be a stream event's id at all (what a client sends as `Last-Event-ID` is not checked before). */
export function isStreamEventId(text: string): boolean {
  return /^\d{1,18}$/.test(text);
}

/** The requests a stream answers, from its priming event; null for any other event. */
export function awaitedRequestsOf(message: unknown): readonly RequestId[] | null {
  if (typeof message !== 'object' || message === null || !(AWAITS in message)) return null;
  const awaits = (message as Record<string, unknown>)[AWAITS];
  return Array.isArray(awaits) ? awaits.filter((id): id is RequestId => typeof id === 'string' || typeof id === 'number') : null;
}

/** A JSON-RPC message (what a client may be sent), as opposed to a priming event. */
export function isMessage(message: unknown): boolean {
  return typeof message === 'object' && message !== null && 'jsonrpc' in message;
}

function isPriming(message: JSONRPCMessage): boolean {
  return Object.keys(message).length === 0;
}
