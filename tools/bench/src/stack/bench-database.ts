import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';

export interface BenchDatabase {
  readonly name: string;
  readonly url: string;
  readonly pool: Pool;
  drop(): Promise<void>;
}

/**
 * An empty scratch database, `onceport_bench_<hex>`: the apps migrate it at their start, exactly as
 * in production. Dropped (with force) by `drop()`.
 */
export async function createBenchDatabase(serverUrl: string, label: string): Promise<BenchDatabase> {
  const name = `onceport_bench_${label}_${randomBytes(4).toString('hex')}`;
  await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool = new Pool({ connectionString: url.toString(), max: 40 });
  // An idle connection the server ends (a restart, a forced drop) must not crash the run: the next query reconnects.
  pool.on('error', (error) => process.stderr.write(`bench database ${name}: idle connection lost: ${error.message}\n`));
  return {
    name,
    url: url.toString(),
    pool,
    async drop() {
      await pool.end();
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const admin = new Pool({ connectionString: serverUrl, max: 1 });
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}
