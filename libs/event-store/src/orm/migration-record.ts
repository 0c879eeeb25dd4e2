import type { Transaction } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { MIGRATION_TABLE } from './orm-config';

/** The hand-written runner's record (`id`, `applied_at`); kept, frozen, so an old replica still starts during an upgrade. */
const LEGACY_TABLE = 'onceport.schema_migrations';

// Any constant works; it only has to be the same for every process migrating this database (the old runner's key).
const MIGRATION_LOCK_KEY = 0x0ce9_0001;

/** Serialises every migrating process on this database until `trx` ends. */
export async function lockMigrations(em: EntityManager, trx: Transaction): Promise<void> {
  await em.getConnection().execute('SELECT pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY], 'all', trx);
}

/**
 * Creates the migrator's table once (under the lock, so replicas never race on the DDL), and when the
 * old runner had migrated this database, adopts every id it recorded: those steps are never applied
 * again. Its own committed transaction: MikroORM checks for its table outside the run's transaction.
 */
export async function prepareMigrationRecord(em: EntityManager): Promise<void> {
  await em.getConnection().transactional(async (trx) => {
    const execute = (sql: string): Promise<unknown> => em.getConnection().execute(sql, [], 'all', trx);
    await lockMigrations(em, trx);
    // A catalog scan, not to_regclass: that one may answer from this backend's stale cache after the lock wait.
    const present = await em
      .getConnection()
      .execute<{ present: boolean }[]>(
        'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = ? AND tablename = ?) AS present',
        MIGRATION_TABLE.split('.'),
        'all',
        trx,
      );
    if (present[0]?.present) return;
    await execute('CREATE SCHEMA IF NOT EXISTS onceport');
    // The shape MikroORM's own `ensureTable` would create.
    await execute(
      `CREATE TABLE ${MIGRATION_TABLE} (id serial PRIMARY KEY, name varchar(255), executed_at timestamptz DEFAULT CURRENT_TIMESTAMP)`,
    );
    await execute(`
DO $adopt$ BEGIN
  IF to_regclass('${LEGACY_TABLE}') IS NOT NULL THEN
    INSERT INTO ${MIGRATION_TABLE} (name, executed_at) SELECT id, applied_at FROM ${LEGACY_TABLE} ORDER BY id;
  END IF;
END $adopt$`);
  });
}

/**
 * The step ids recorded as applied, by the migrator or by the old runner before it (a database the
 * owner has not re-migrated since the upgrade is complete as long as no new step came). Only reads,
 * so the restricted service role can ask; a table it cannot read counts as recording nothing.
 */
export async function recordedStepIds(em: EntityManager): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const [table, column] of [
    [MIGRATION_TABLE, 'name'],
    [LEGACY_TABLE, 'id'],
  ] as const) {
    const readable = await em
      .getConnection()
      // CASE, not AND: only CASE promises has_table_privilege is not asked about a table that does not exist.
      .execute<{ ok: boolean }[]>(
        `SELECT CASE WHEN to_regclass('${table}') IS NULL THEN false ELSE has_table_privilege('${table}', 'SELECT') END AS ok`,
      );
    if (!readable[0]?.ok) continue;
    const rows = await em.getConnection().execute<{ id: string }[]>(`SELECT ${column} AS id FROM ${table}`);
    for (const row of rows) ids.add(row.id);
  }
  return ids;
}
