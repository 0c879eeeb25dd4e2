import type { QueryResult, QueryResultRow } from 'pg';
import { notifyAppended, takeAppended } from './appended-notice';

/** Anything that runs a query: a pool, or a client inside a transaction. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
}

/** A pool that can lend a client for a transaction (pg.Pool satisfies it). */
export interface ClientPool extends Queryable {
  connect(): Promise<Queryable & { release(err?: Error | boolean): void }>;
}

/** Runs `work` in one transaction; rolls back on any error and rethrows it. */
export async function inTransaction<T>(pool: ClientPool, work: (tx: Queryable) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    // Woken through the pool, never on this client: it goes back to the pool now, to someone else's transaction.
    const appended = takeAppended(client);
    if (appended) {
      notifyAppended(pool);
      // Committed whatever they do: none of them may send the transaction to the rollback below.
      for (const committed of appended) {
        try {
          committed();
        } catch {
          // whoever was told finds the events by the store's tail too
        }
      }
    }
    return result;
  } catch (error) {
    takeAppended(client);
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      // A failed rollback means the connection is unusable: drop it from the pool.
      broken = true;
      void rollbackError;
    }
    throw error;
  } finally {
    client.release(broken);
  }
}
