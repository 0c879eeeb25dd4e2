import { type KnownExecutionState } from '@onceport/domain';
import type { Queryable } from '@onceport/event-store';

export interface RunRow {
  readonly runId: string;
  readonly actor: string;
  readonly trigger: string;
  readonly openedAt: string;
  readonly attempts: number;
  readonly lastAttemptAt: string;
  /** The later of the last attempt's start and the run's last call. */
  readonly lastActivityAt: string;
}

export interface RunCallRow {
  readonly attempt: number;
  readonly executionId: string;
  readonly relation: 'created' | 'asked_again';
  readonly calledAt: string;
}

/** Which runs to list: every run, or one actor's, or one trigger's; `after` is the last run id of the page before. */
export interface RunsQuery {
  readonly actor?: string;
  readonly trigger?: string;
  readonly after?: string;
  readonly limit: number;
}

export interface RunsPage {
  readonly runs: readonly RunRow[];
  /** The run id to pass as `after` for the next page; null on the last one. */
  readonly next: string | null;
}

/**
 * Runs newest first (opened_at, then run id), paged by keyset: `after` is compared by its row's own
 * timestamp, so runs opened in the same millisecond are neither skipped nor repeated. Null when
 * `after` names no run.
 */
export async function pageOfRuns(q: Queryable, query: RunsQuery): Promise<RunsPage | null> {
  const params: unknown[] = [];
  const where: string[] = [];
  const param = (value: unknown): string => `$${params.push(value)}`;
  if (query.after !== undefined) {
    const anchor = await q.query('SELECT 1 FROM onceport.runs WHERE run_id = $1', [query.after]);
    if (anchor.rowCount === 0) return null;
    where.push(`(r.opened_at, r.run_id) < (SELECT opened_at, run_id FROM onceport.runs WHERE run_id = ${param(query.after)})`);
  }
  if (query.actor !== undefined) where.push(`r.actor = ${param(query.actor)}`);
  if (query.trigger !== undefined) where.push(`r.trigger = ${param(query.trigger)}`);
  const result = await q.query<{
    run_id: string;
    actor: string;
    trigger: string;
    opened_at: Date;
    attempts: number;
    last_attempt_at: Date;
    last_activity_at: Date;
  }>(
    `SELECT r.run_id, r.actor, r.trigger, r.opened_at, r.attempts, r.last_attempt_at,
            GREATEST(r.last_attempt_at, (SELECT max(c.called_at) FROM onceport.run_calls c WHERE c.run_id = r.run_id)) AS last_activity_at
       FROM onceport.runs r
      ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY r.opened_at DESC, r.run_id DESC
      LIMIT ${param(query.limit + 1)}`,
    params,
  );
  const rows = result.rows.slice(0, query.limit).map((row) => ({
    runId: row.run_id,
    actor: row.actor,
    trigger: row.trigger,
    openedAt: row.opened_at.toISOString(),
    attempts: row.attempts,
    lastAttemptAt: row.last_attempt_at.toISOString(),
    lastActivityAt: row.last_activity_at.toISOString(),
  }));
  return { runs: rows, next: result.rows.length > query.limit ? (rows[rows.length - 1]?.runId ?? null) : null };
}

/** Every call of a run, in the order they came. */
export async function runCalls(q: Queryable, runId: string): Promise<RunCallRow[]> {
  const result = await q.query<{ attempt: number; execution_id: string; relation: 'created' | 'asked_again'; called_at: Date }>(
    'SELECT attempt, execution_id, relation, called_at FROM onceport.run_calls WHERE run_id = $1 ORDER BY called_at, event_id',
    [runId],
  );
  return result.rows.map((row) => ({
    attempt: row.attempt,
    executionId: row.execution_id,
    relation: row.relation,
    calledAt: row.called_at.toISOString(),
  }));
}

/** The folded states of these executions, as the executions read model holds them. */
export async function executionStates(q: Queryable, executionIds: readonly string[]): Promise<Map<string, KnownExecutionState>> {
  if (executionIds.length === 0) return new Map();
  const result = await q.query<{ execution_id: string; state: KnownExecutionState }>(
    'SELECT execution_id, state FROM onceport.execution_matches WHERE execution_id = ANY($1)',
    [[...executionIds]],
  );
  return new Map(result.rows.map((row) => [row.execution_id, row.state]));
}
