import type { Queryable } from '@onceport/event-store';

/** A session's last use is written at most this often: a busy session is not one write per request. */
const TOUCH_EVERY_MS = 60_000;

/**
 * MCP sessions by id, shared by every intake replica. A session belongs to the actor that opened it;
 * it ends on DELETE and expires after `idleMs` without a request. An ended or expired id reads as
 * unknown (the transport's 404: the client initializes again), and the pruner deletes its row.
 */
export class McpSessions {
  constructor(
    private readonly db: Queryable,
    private readonly idleMs: number,
  ) {}

  async register(sessionId: string, actor: string): Promise<void> {
    await this.db.query('INSERT INTO onceport.mcp_sessions (session_id, actor) VALUES ($1, $2) ON CONFLICT DO NOTHING', [sessionId, actor]);
  }

  /** The actor of a live session (and its use recorded); null when it was never issued, has ended or has expired. */
  async actorOf(sessionId: string): Promise<string | null> {
    const result = await this.db.query<{ actor: string }>(
      `WITH live AS (
         SELECT actor, last_seen_at FROM onceport.mcp_sessions
         WHERE session_id = $1 AND ended_at IS NULL AND last_seen_at > now() - $2 * interval '1 millisecond'
       ), touched AS (
         UPDATE onceport.mcp_sessions s SET last_seen_at = now() FROM live
         WHERE s.session_id = $1 AND live.last_seen_at < now() - $3 * interval '1 millisecond'
       )
       SELECT actor FROM live`,
      [sessionId, this.idleMs, Math.min(TOUCH_EVERY_MS, Math.floor(this.idleMs / 4))],
    );
    return result.rows[0]?.actor ?? null;
  }

  /** DELETE: the session is over for every replica; its streams' replay data goes now, its row with the next prune. */
  async end(sessionId: string): Promise<void> {
    await this.db.query('UPDATE onceport.mcp_sessions SET ended_at = now() WHERE session_id = $1 AND ended_at IS NULL', [sessionId]);
    await this.db.query('DELETE FROM onceport.mcp_stream_events WHERE session_id = $1', [sessionId]);
  }
}
