import { raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { NextBatch, type Queryable, refusedForItsValues } from '@onceport/event-store';
import { McpSessionEntity, McpStreamEventEntity } from './mcp-session.entity';

/** A session's last use is written at most this often: a busy session is not one write per request. */
const TOUCH_EVERY_MS = 60_000;

/**
 * MCP sessions by id, shared by every intake replica. A session belongs to the actor that opened it;
 * it ends on DELETE and expires after `idleMs` without a request. An ended or expired id reads as
 * unknown (the transport's 404: the client initializes again), and the pruner deletes its row.
 * Opening and ending fork their own EntityManager (a unit of work per request); the lookup on every
 * MCP request is one prepared statement on the kit's pool (the ORM's query path cost intake about
 * 5 % of its CPU under load, for SQL it cannot express anyway).
 */
export class McpSessions {
  /** Lookups that arrive while one is in flight go together in the next: a burst of requests is a few statements. */
  private readonly lookups: NextBatch<string, string | null>;

  constructor(
    private readonly em: EntityManager,
    private readonly db: Queryable,
    private readonly idleMs: number,
  ) {
    this.lookups = new NextBatch((sessionIds) => this.actorsOf(sessionIds), 256, refusedForItsValues);
  }

  async register(sessionId: string, actor: string): Promise<void> {
    await this.em.fork().createQueryBuilder(McpSessionEntity).insert({ sessionId, actor }).onConflict().ignore().execute();
  }

  /**
   * The actor of a live session (and its use recorded); null when it was never issued, has ended or
   * has expired. On every MCP request, grouped with the lookups that arrive meanwhile.
   */
  actorOf(sessionId: string): Promise<string | null> {
    return this.lookups.submit(sessionId);
  }

  /**
   * The read and the occasional touch stay one statement (one round trip), which MikroORM's query
   * builder cannot express (a data-modifying CTE), hence SQL.
   */
  private async actorsOf(sessionIds: readonly string[]): Promise<(string | null)[]> {
    const { rows } = await this.db.query<{ session_id: string; actor: string }>(
      `WITH live AS (
         SELECT session_id, actor, last_seen_at FROM onceport.mcp_sessions
         WHERE session_id = ANY($1::text[]) AND ended_at IS NULL AND last_seen_at > now() - $2::float8 * interval '1 millisecond'
       ), stale AS (
         -- Locked in one order, skipping rows another replica is touching: two replicas touching the
         -- same sessions never deadlock, and a use recorded by the other counts as this one's.
         SELECT session_id FROM onceport.mcp_sessions
         WHERE session_id IN (SELECT session_id FROM live WHERE last_seen_at < now() - $3::float8 * interval '1 millisecond')
         ORDER BY session_id FOR UPDATE SKIP LOCKED
       ), touched AS (
         UPDATE onceport.mcp_sessions s SET last_seen_at = now() FROM stale WHERE s.session_id = stale.session_id
       )
       SELECT session_id, actor FROM live`,
      [[...new Set(sessionIds)], this.idleMs, Math.min(TOUCH_EVERY_MS, Math.floor(this.idleMs / 4))],
    );
    const actors = new Map(rows.map((row) => [row.session_id, row.actor]));
    return sessionIds.map((sessionId) => actors.get(sessionId) ?? null);
  }

  /** DELETE: the session is over for every replica; its streams' replay data goes now, its row with the next prune. */
  async end(sessionId: string): Promise<void> {
    const em = this.em.fork();
    await em.nativeUpdate(McpSessionEntity, { sessionId, endedAt: null }, { endedAt: raw('now()') });
    await em.nativeDelete(McpStreamEventEntity, { sessionId });
  }
}
