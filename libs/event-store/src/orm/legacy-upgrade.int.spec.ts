import { randomBytes } from 'node:crypto';
import type { Migration } from '@mikro-orm/migrations';
import { Pool } from 'pg';
import { eventStoreMigrations, sqlMigration, type SchemaStep } from '../migrations';
import { TEST_DATABASE_SERVER_URL, type TestDatabase, createTestDatabase } from '../testing';
import { runMigrations } from './migrator';
import { MigrationSetupError } from './service-role-grants';

/** The SQL a step runs, as the old runner ran it: the same text, one statement batch. */
function sqlOf(step: SchemaStep): string {
  const migration = new step(...([] as unknown as ConstructorParameters<typeof Migration>));
  void migration.up();
  return migration.getQueries().join('\n');
}

/** What the hand-written runner left behind: the steps applied and their ids in `onceport.schema_migrations`. */
async function migrateTheOldWay(db: TestDatabase, steps: readonly SchemaStep[]): Promise<void> {
  await db.pool.query('CREATE SCHEMA IF NOT EXISTS onceport');
  await db.pool.query(
    'CREATE TABLE IF NOT EXISTS onceport.schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  for (const step of steps) {
    await db.pool.query(sqlOf(step));
    await db.pool.query('INSERT INTO onceport.schema_migrations (id) VALUES ($1)', [step.id]);
  }
}

describe('a database the old runner migrated, upgraded to the MikroORM migrator (real PostgreSQL)', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
    // Back to the state before the migrator: only what the old runner knew.
    await db.pool.query('DROP SCHEMA onceport CASCADE');
    await migrateTheOldWay(db, eventStoreMigrations);
  });
  afterAll(() => db.drop());

  it('lets the service role start on it before the owner re-migrates, and names a step that is still missing', async () => {
    const role = `onceport_svc_${randomBytes(4).toString('hex')}`;
    const server = new Pool({ connectionString: TEST_DATABASE_SERVER_URL, max: 1 });
    await server.query(`CREATE ROLE ${role} LOGIN`);
    try {
      // What the old runner's grants gave the services on its record.
      await db.pool.query(`GRANT USAGE ON SCHEMA onceport TO ${role}; GRANT SELECT ON onceport.schema_migrations TO ${role}`);
      const url = new URL(db.url);
      url.username = role;
      await expect(runMigrations(url.toString(), eventStoreMigrations)).resolves.toEqual([]);
      const refused = runMigrations(url.toString(), [
        ...eventStoreMigrations,
        sqlMigration('940-not-yet', 'CREATE TABLE onceport.not_yet (id int)'),
      ]);
      await expect(refused).rejects.toBeInstanceOf(MigrationSetupError);
      await expect(refused).rejects.toThrow(/needs migrations 940-not-yet .*ONCEPORT_MIGRATE_ONLY=true/);
    } finally {
      await db.pool.query(`REVOKE ALL ON ALL TABLES IN SCHEMA onceport FROM ${role}; REVOKE ALL ON SCHEMA onceport FROM ${role}`);
      await server.query(`DROP ROLE IF EXISTS ${role}`);
      await server.end();
    }
  });

  it('adopts the ids the old runner recorded and applies none of them again', async () => {
    // Re-applying 001 would fail: its tables exist.
    await expect(runMigrations(db.url, eventStoreMigrations)).resolves.toEqual([]);
    await expect(runMigrations(db.url, eventStoreMigrations, { serviceRole: null })).resolves.toEqual([]);
  });

  it('applies only a new step, records it once, and keeps the old record as it was', async () => {
    const next = sqlMigration('950-after-upgrade', 'CREATE TABLE onceport.after_upgrade (id int)');
    const results = await Promise.all([
      runMigrations(db.url, [...eventStoreMigrations, next]),
      runMigrations(db.url, [...eventStoreMigrations, next]),
    ]);
    expect(results.flat()).toEqual(['950-after-upgrade']);
    const record = await db.pool.query<{ name: string }>('SELECT name FROM onceport.mikro_orm_migrations ORDER BY id');
    expect(record.rows.map((row) => row.name)).toEqual([...eventStoreMigrations.map((step) => step.id), '950-after-upgrade']);
    const old = await db.pool.query<{ id: string }>('SELECT id FROM onceport.schema_migrations ORDER BY id');
    expect(old.rows.map((row) => row.id)).toEqual(eventStoreMigrations.map((step) => step.id));
  });
});
