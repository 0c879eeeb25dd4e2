import type { Queryable } from '@onceport/event-store';

/** MCP sessions by id, shared by every intake replica. A session belongs to the actor that opened it. */
export class McpSessions {
  constructor(private readonly db: Queryable) {}

  async register(sessionId: string, actor: string): Promise<void> {
    await this.db.query('INSERT INTO onceport.mcp_sessions (session_id, actor) VALUES ($1, $2) ON CONFLICT DO NOTHING', [sessionId, actor]);
  }

  async actorOf(sessionId: string): Promise<string | null> {
    const result = await this.db.query<{ actor: string }>('SELECT actor FROM onceport.mcp_sessions WHERE session_id = $1', [sessionId]);
    return result.rows[0]?.actor ?? null;
  }

  async end(sessionId: string): Promise<void> {
    // The row stays as evidence of the agent process; only its streams' replay data goes.
    await this.db.query('DELETE FROM onceport.mcp_stream_events WHERE session_id = $1', [sessionId]);
  }
}
