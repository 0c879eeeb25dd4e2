import type { Queryable } from '@onceport/event-store';

export interface PruneSettings {
  /** Sessions idle this long are expired (the same bound `McpSessions` answers 404 from). */
  readonly sessionIdleMs: number;
  /** REST agent process ids issued and never used this long are deleted. */
  readonly unusedAgentProcessMs: number;
  /** Rows deleted per statement: no statement holds locks on more than this. */
  readonly batchSize?: number;
  /** Batches per table per run; what is left waits for the next run. */
  readonly maxBatches?: number;
}

export interface PruneCounts {
  readonly sessions: number;
  readonly streamEvents: number;
  readonly agentProcesses: number;
}

/** Stream events younger than this are left alone even without a session row: the row may be being written. */
const ORPHAN_GRACE = "interval '5 minutes'";

/**
 * Deletes what intake's own tables would otherwise keep for ever: ended and expired MCP sessions,
 * the stream events of sessions that are gone, and REST agent process ids never used. Every replica
 * may run it at once: each statement deletes a bounded batch chosen with `SKIP LOCKED`, so replicas
 * share the work instead of waiting on each other, and deleting twice is deleting nothing.
 */
export class IntakePruner {
  constructor(
    private readonly db: Queryable,
    private readonly settings: PruneSettings,
  ) {}

  async pruneOnce(): Promise<PruneCounts> {
    const sessions = await this.inBatches(
      `DELETE FROM onceport.mcp_sessions WHERE session_id IN (
         SELECT session_id FROM onceport.mcp_sessions
         WHERE ended_at IS NOT NULL OR last_seen_at < now() - $1 * interval '1 millisecond'
         LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      this.settings.sessionIdleMs,
    );
    const streamEvents = await this.inBatches(
      `DELETE FROM onceport.mcp_stream_events WHERE event_id IN (
         SELECT e.event_id FROM onceport.mcp_stream_events e
         WHERE e.created_at < now() - ${ORPHAN_GRACE}
           AND NOT EXISTS (SELECT 1 FROM onceport.mcp_sessions s WHERE s.session_id = e.session_id)
         LIMIT $1 FOR UPDATE SKIP LOCKED)`,
    );
    const agentProcesses = await this.inBatches(
      `DELETE FROM onceport.rest_agent_processes WHERE agent_process IN (
         SELECT agent_process FROM onceport.rest_agent_processes
         WHERE used_at IS NULL AND issued_at < now() - $1 * interval '1 millisecond'
         LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      this.settings.unusedAgentProcessMs,
    );
    return { sessions, streamEvents, agentProcesses };
  }

  /** Runs a batch DELETE until a batch comes back short; its last parameter is the batch size. */
  private async inBatches(sql: string, ...params: unknown[]): Promise<number> {
    const batchSize = this.settings.batchSize ?? 500;
    let deleted = 0;
    for (let batch = 0; batch < (this.settings.maxBatches ?? 20); batch += 1) {
      const result = await this.db.query(sql, [...params, batchSize]);
      deleted += result.rowCount ?? 0;
      if ((result.rowCount ?? 0) < batchSize) break;
    }
    return deleted;
  }
}
