import type { EventStore as McpEventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Queryable } from '@onceport/event-store';

/**
 * The SSE events of one MCP session, in PostgreSQL. Bound to the session it serves: a client can
 * only replay its own streams, whatever event id it sends.
 */
export class PgMcpEventStore implements McpEventStore {
  constructor(
    private readonly db: Queryable,
    private readonly sessionId: () => string | undefined,
  ) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const result = await this.db.query<{ event_id: string }>(
      'INSERT INTO onceport.mcp_stream_events (stream_id, session_id, message) VALUES ($1, $2, $3) RETURNING event_id::text AS event_id',
      [streamId, this.sessionId() ?? '', JSON.stringify(message)],
    );
    return result.rows[0]?.event_id ?? '';
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return (await this.find(eventId))?.stream_id;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const anchor = await this.find(lastEventId);
    if (!anchor) throw new Error('unknown Last-Event-ID for this session');
    const later = await this.db.query<{ event_id: string; message: JSONRPCMessage }>(
      `SELECT event_id::text AS event_id, message FROM onceport.mcp_stream_events
       WHERE stream_id = $1 AND session_id = $2 AND event_id > $3 ORDER BY event_id`,
      [anchor.stream_id, this.sessionId() ?? '', lastEventId],
    );
    for (const row of later.rows) await send(row.event_id, row.message);
    return anchor.stream_id;
  }

  private async find(eventId: string): Promise<{ stream_id: string } | undefined> {
    if (!/^\d{1,19}$/.test(eventId)) return undefined;
    const result = await this.db.query<{ stream_id: string }>(
      'SELECT stream_id FROM onceport.mcp_stream_events WHERE event_id = $1 AND session_id = $2',
      [eventId, this.sessionId() ?? ''],
    );
    return result.rows[0];
  }
}
