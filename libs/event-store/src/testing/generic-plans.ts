import type { Pool, QueryResult } from 'pg';
import type { Queryable } from '../queryable';

/**
 * Every service prepares its statements, and PostgreSQL switches a prepared statement to a generic
 * plan (one that ignores the values) after a few runs when that looks no dearer. This runs `work`
 * against a probe that plans each query it is handed as a generic prepared statement on `pool`, and
 * answers it with no rows; it returns the plans (EXPLAIN's JSON, as text) in the order asked.
 */
/** An array element as text: timestamps in ISO form, bytes in bytea's hex form. */
function arrayItem(item: unknown): string {
  if (item instanceof Date) return item.toISOString();
  if (Buffer.isBuffer(item)) return `\\x${item.toString('hex')}`;
  return String(item);
}

export async function genericPlansOf(pool: Pool, work: (probe: Queryable) => Promise<unknown>): Promise<string[]> {
  const client = await pool.connect();
  const plans: string[] = [];
  const literal = (value: unknown): string => {
    if (value === null || value === undefined) return 'NULL';
    if (value instanceof Date) return client.escapeLiteral(value.toISOString());
    // An array literal ('{"a","b"}'), typed by the statement's parameter.
    if (Array.isArray(value))
      return client.escapeLiteral(`{${value.map((item) => `"${arrayItem(item).replace(/["\\]/g, '\\$&')}"`).join(',')}}`);
    if (['string', 'number', 'bigint', 'boolean'].includes(typeof value)) return client.escapeLiteral(String(value));
    throw new TypeError(`genericPlansOf: no literal for a ${typeof value} parameter`);
  };
  try {
    await client.query('SET plan_cache_mode = force_generic_plan');
    const probe: Queryable = {
      query: async (text, values = []) => {
        await client.query(`PREPARE probed AS ${text}`);
        try {
          const args = values.map(literal).join(', ');
          const explained = await client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) EXECUTE probed${args ? `(${args})` : ''}`);
          plans.push(JSON.stringify(explained.rows[0]?.['QUERY PLAN']));
        } finally {
          await client.query('DEALLOCATE probed');
        }
        return { rows: [], rowCount: 0 } as unknown as QueryResult<never>;
      },
    };
    await work(probe);
  } finally {
    await client.query('RESET plan_cache_mode');
    client.release();
  }
  return plans;
}
