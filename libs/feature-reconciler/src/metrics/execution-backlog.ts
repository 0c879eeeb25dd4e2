import type { Queryable } from '@onceport/event-store';
import { processGauge, toolLabel } from '@onceport/service-kit';

/**
 * The states an execution is still moving through (or waiting in for a person): the backlog. Done
 * states (completed, failed, denied, reverted, expired) grow without bound and are counted by the
 * services' counters instead, so this query stays on the status index and stays cheap.
 */
export const OPEN_STATES = [
  'accepted',
  'awaiting_approval',
  'authorized',
  'dispatched',
  'dispatched_unknown',
  'completed_result_not_delivered',
  'needs_review',
] as const;

/** Databases (with the contracts whose tool names label them) the gauge reads at scrape time. */
const sources = new Map<Queryable, ReadonlyMap<string, unknown>>();

/*
 * Computed from the read model (`onceport.execution_matches`, kept by the sweep) when scraped, not
 * counted from events in memory: every replica reports the same truth (aggregate with max()).
 */
processGauge({
  name: 'onceport_executions',
  help: 'Executions in an open state now (from the execution_matches read model), by tool and state; needs_review is the review backlog.',
  labelNames: ['tool', 'state'],
  async collect() {
    this.reset();
    for (const [db, contracts] of sources) {
      for (const tool of contracts.keys()) for (const state of OPEN_STATES) this.set({ tool, state }, 0);
      let rows: { tool: string; status: string; n: string }[];
      try {
        rows = (
          await db.query<{ tool: string; status: string; n: string }>(
            'SELECT tool, status, count(*)::text AS n FROM onceport.execution_matches WHERE status = ANY($1) GROUP BY tool, status',
            [OPEN_STATES],
          )
        ).rows;
      } catch (error) {
        // The database is unreachable: no series this scrape rather than a failed /metrics (readiness says why).
        void error;
        continue;
      }
      for (const row of rows) this.inc({ tool: toolLabel(contracts, row.tool), state: row.status }, Number(row.n));
    }
  },
});

/** Lets the gauge read this database; the returned function stops it (before the pool closes). */
export function reportExecutionBacklog(db: Queryable, contracts: ReadonlyMap<string, unknown>): () => void {
  sources.set(db, contracts);
  return () => sources.delete(db);
}
