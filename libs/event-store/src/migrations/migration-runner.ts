import { type ClientPool, type Queryable, inTransaction } from '../queryable';
import type { Migration } from './migration';
import { MigrationSetupError, grantServiceRole } from './service-role-grants';

// Any constant works; it only has to be the same for every process migrating this database.
const MIGRATION_LOCK_KEY = 0x0ce9_0001;

export interface MigrationOptions {
  /** The role the services connect as; granted exactly what they need after the steps (`grantServiceRole`). */
  readonly serviceRole?: string | null;
}

/**
 * Applies the migrations not yet recorded, all in one transaction under a transaction-scoped
 * advisory lock, so replicas that start together apply each step exactly once; running it again
 * is a no-op. Returns the ids it applied.
 *
 * When every step is recorded already (and no grants are asked for) it only reads: a service
 * connected as the restricted service role, which may not create anything, starts fine on a schema
 * the owner migrated. A step still missing there is an error saying how to apply it.
 */
export async function runMigrations(pool: ClientPool, migrations: readonly Migration[], options: MigrationOptions = {}): Promise<string[]> {
  assertOrdered(migrations);
  if (!options.serviceRole && (await allRecorded(pool, migrations))) return [];
  const applied: string[] = [];
  try {
    await applyMissing(pool, migrations, applied, options.serviceRole ?? null);
  } catch (error) {
    if ((error as { code?: unknown }).code !== '42501') throw error;
    const missing = await missingIds(pool, migrations);
    throw new MigrationSetupError(
      `the schema needs migrations ${missing.join(', ') || '(unknown)'} and this database role may not apply them (${(error as Error).message}): ` +
        'run the migrate-only step (ONCEPORT_MIGRATE_ONLY=true) as the owner role (ONCEPORT_MIGRATION_DATABASE_URL), then start the service again',
    );
  }
  return applied;
}

async function allRecorded(db: Queryable, migrations: readonly Migration[]): Promise<boolean> {
  return (await missingIds(db, migrations)).length === 0;
}

/** The ids not recorded yet; every id when the schema or the table is not there (or not readable). */
async function missingIds(db: Queryable, migrations: readonly Migration[]): Promise<string[]> {
  const table = await db.query<{ present: boolean }>("SELECT to_regclass('onceport.schema_migrations') IS NOT NULL AS present");
  if (!table.rows[0]?.present) return migrations.map((m) => m.id);
  const readable = await db.query<{ ok: boolean }>("SELECT has_table_privilege('onceport.schema_migrations', 'SELECT') AS ok");
  if (!readable.rows[0]?.ok) return migrations.map((m) => m.id);
  const done = new Set((await db.query<{ id: string }>('SELECT id FROM onceport.schema_migrations')).rows.map((row) => row.id));
  return migrations.filter((m) => !done.has(m.id)).map((m) => m.id);
}

async function applyMissing(pool: ClientPool, migrations: readonly Migration[], applied: string[], serviceRole: string | null): Promise<void> {
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
    if (serviceRole) await grantServiceRole(tx, serviceRole);
  });
}

function assertOrdered(migrations: readonly Migration[]): void {
  const ids = migrations.map((m) => m.id);
  const sorted = [...ids].sort();
  if (ids.join('\n') !== sorted.join('\n') || new Set(ids).size !== ids.length) {
    throw new Error(`migrations must have unique ids in ascending order; got ${ids.join(', ')}`);
  }
}
