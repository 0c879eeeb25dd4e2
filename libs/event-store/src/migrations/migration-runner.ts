import { type ClientPool, inTransaction } from '../queryable';
import type { Migration } from './migration';

// Any constant works; it only has to be the same for every process migrating this database.
const MIGRATION_LOCK_KEY = 0x0ce9_0001;

/**
 * Applies the migrations not yet recorded, all in one transaction under a transaction-scoped
 * advisory lock, so replicas that start together apply each step exactly once; running it again
 * is a no-op. Returns the ids it applied.
 */
export async function runMigrations(pool: ClientPool, migrations: readonly Migration[]): Promise<string[]> {
  assertOrdered(migrations);
  const applied: string[] = [];
  await inTransaction(pool, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.query('CREATE SCHEMA IF NOT EXISTS onceport');
    await tx.query(
      `CREATE TABLE IF NOT EXISTS onceport.schema_migrations (
         id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const done = await tx.query<{ id: string }>('SELECT id FROM onceport.schema_migrations');
    const doneIds = new Set(done.rows.map((row) => row.id));
    for (const migration of migrations) {
      if (doneIds.has(migration.id)) continue;
      await tx.query(migration.sql);
      await tx.query('INSERT INTO onceport.schema_migrations (id) VALUES ($1)', [migration.id]);
      applied.push(migration.id);
    }
  });
  return applied;
}

function assertOrdered(migrations: readonly Migration[]): void {
  const ids = migrations.map((m) => m.id);
  const sorted = [...ids].sort();
  if (ids.join('\n') !== sorted.join('\n') || new Set(ids).size !== ids.length) {
    throw new Error(`migrations must have unique ids in ascending order; got ${ids.join(', ')}`);
  }
}
