import type { EntityManager, QueryBuilder } from '@mikro-orm/postgresql';
import { McpSessionEntity, McpStreamEventEntity } from '../mcp/mcp-session.entity';
import { RestAgentProcessEntity } from '../rest/agent-process.entity';

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

/** One bounded DELETE in a unit of work of its own; answers how many rows it deleted. */
type BatchDelete = (em: EntityManager, batchSize: number) => Promise<number>;

/**
 * Deletes what intake's own tables would otherwise keep for ever: ended and expired MCP sessions,
 * the stream events of sessions that are gone, and REST agent process ids never used. Every replica
 * may run it at once: each statement deletes a bounded batch chosen with `SKIP LOCKED`, so replicas
 * share the work instead of waiting on each other, and deleting twice is deleting nothing.
 */
export class IntakePruner {
  constructor(
    private readonly em: EntityManager,
    private readonly settings: PruneSettings,
  ) {}

  async pruneOnce(): Promise<PruneCounts> {
    const sessions = await this.inBatches((em, batchSize) => {
      const gone = em
        .createQueryBuilder(McpSessionEntity, 's')
        .select('s.sessionId')
        .where("s.ended_at IS NOT NULL OR s.last_seen_at < now() - ? * interval '1 millisecond'", [this.settings.sessionIdleMs])
        .limit(batchSize);
      return deleted(em.createQueryBuilder(McpSessionEntity).delete({ sessionId: { $in: skipLocked(gone) } }));
    });
    const streamEvents = await this.inBatches((em, batchSize) => {
      const orphaned = em
        .createQueryBuilder(McpStreamEventEntity, 'e')
        .select('e.eventId')
        .where(
          `e.created_at < now() - ${ORPHAN_GRACE} AND NOT EXISTS (SELECT 1 FROM onceport.mcp_sessions s WHERE s.session_id = e.session_id)`,
        )
        .limit(batchSize);
      return deleted(em.createQueryBuilder(McpStreamEventEntity).delete({ eventId: { $in: skipLocked(orphaned) } }));
    });
    const agentProcesses = await this.inBatches((em, batchSize) => {
      const unused = em
        .createQueryBuilder(RestAgentProcessEntity, 'p')
        .select('p.agentProcess')
        .where("p.used_at IS NULL AND p.issued_at < now() - ? * interval '1 millisecond'", [this.settings.unusedAgentProcessMs])
        .limit(batchSize);
      return deleted(em.createQueryBuilder(RestAgentProcessEntity).delete({ agentProcess: { $in: skipLocked(unused) } }));
    });
    return { sessions, streamEvents, agentProcesses };
  }

  /** Runs a batch DELETE until a batch comes back short. */
  private async inBatches(batchDelete: BatchDelete): Promise<number> {
    const batchSize = this.settings.batchSize ?? 500;
    let total = 0;
    for (let batch = 0; batch < (this.settings.maxBatches ?? 20); batch += 1) {
      const count = await batchDelete(this.em.fork(), batchSize);
      total += count;
      if (count < batchSize) break;
    }
    return total;
  }
}

async function deleted(query: { execute(method: 'run'): Promise<unknown> }): Promise<number> {
  const result = (await query.execute('run')) as { affectedRows?: number };
  return result.affectedRows ?? 0;
}

/**
 * The batch as a locking subquery of the DELETE, so the statement stays one autocommit round trip
 * (MikroORM's own lock modes ask for an explicit transaction).
 */
function skipLocked<T extends object>(batch: QueryBuilder<T>): ReturnType<QueryBuilder<T>['getKnexQuery']> {
  return batch.getKnexQuery().forUpdate().skipLocked();
}
