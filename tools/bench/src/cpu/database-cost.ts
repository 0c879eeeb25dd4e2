import type { Pool } from 'pg';

/** One normalised statement's share of a round, per execution. */
export interface StatementCost {
  readonly query: string;
  readonly callsPerExecution: number;
  readonly msPerExecution: number;
}

/** What PostgreSQL did for one execution, counted over a round (not timed: counted). */
export interface DatabaseCost {
  /** Transactions that wrote (each got a transaction id), per execution: the commits that flush WAL. */
  readonly writingCommitsPerExecution: number;
  /** WAL flushes per execution: below the writing commits when commits share a flush (group commit). */
  readonly walSyncsPerExecution: number;
  /** Statements every client of this database ran (pg_stat_statements), per execution. */
  readonly statementsPerExecution: number;
  /** The statements that took the most server time, busiest first. */
  readonly top: readonly StatementCost[];
}

interface Counters {
  readonly xid: bigint;
  readonly walSyncs: number;
}

/** Starts counting: zeroes pg_stat_statements and remembers the transaction id and WAL sync counters. Null: the server has no pg_stat_statements. */
export async function startCounting(pool: Pool): Promise<Counters | null> {
  try {
    await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await pool.query('SELECT pg_stat_statements_reset()');
  } catch {
    return null; // not preloaded on this server (ONCEPORT_BENCH_DATABASE_URL): the report says n/a
  }
  return readCounters(pool);
}

/** The cost per execution since `startCounting`; the private cluster serves only this run, so every transaction id is ours. */
export async function costPerExecution(pool: Pool, since: Counters, executions: number, top = 12): Promise<DatabaseCost> {
  const now = await readCounters(pool);
  const statements = await pool.query<{ query: string; calls: string; total_ms: number }>(
    `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query, calls::text, total_exec_time AS total_ms
       FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND query NOT LIKE '%pg_stat_statements%'
      ORDER BY total_exec_time DESC`,
  );
  const per = (n: number): number => (executions === 0 ? Number.NaN : n / executions);
  const calls = statements.rows.reduce((sum, row) => sum + Number(row.calls), 0);
  return {
    writingCommitsPerExecution: per(Number(now.xid - since.xid)),
    walSyncsPerExecution: per(now.walSyncs - since.walSyncs),
    statementsPerExecution: per(calls),
    top: statements.rows.slice(0, top).map((row) => ({
      query: row.query,
      callsPerExecution: per(Number(row.calls)),
      msPerExecution: per(row.total_ms),
    })),
  };
}

async function readCounters(pool: Pool): Promise<Counters> {
  // txid_current_if_assigned would not move; a fresh id costs one, which the delta then counts (negligible).
  const result = await pool.query<{ xid: string; wal_sync: string }>(
    'SELECT pg_current_xact_id()::text AS xid, (SELECT wal_sync FROM pg_stat_wal)::text AS wal_sync',
  );
  const row = result.rows[0];
  return { xid: BigInt(row?.xid ?? '0'), walSyncs: Number(row?.wal_sync ?? 0) };
}
