import { Pool } from 'pg';

/** The process's pg pool (the event store's append path and every plain-SQL port stand on it). */
export function createPool(databaseUrl: string, max = 20): Pool {
  const pool = new Pool({ connectionString: databaseUrl, max });
  // A server restart kills every connection. An idle pooled client reports it on the pool, a
  // checked-out one between two statements on itself: neither may crash the process. The query in
  // flight still fails (and is retried by its caller), and the pool opens fresh connections.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
