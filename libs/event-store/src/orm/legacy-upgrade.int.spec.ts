import type { Migration } from '@mikro-orm/migrations';
import { eventStoreMigrations, sqlMigration, type SchemaStep } from '../migrations';
import { type TestDatabase, createTestDatabase } from '../testing';
import { runMigrations } from './migrator';

/** The SQL a step runs, as the old runner ran it: the same text, one statement batch. */
function sqlOf(step: SchemaStep): string {
  const migration = new step(...([] as unknown as ConstructorParameters<typeof Migration>));
  void migration.up();
  return migration.getQueries().join('\n');
}

/** What the hand-written runner left behind: the steps applied and their ids in `onceport.schema_migrations`. */
async function migrateTheOldWay(db: TestDatabase, steps: readonly SchemaStep[]): Promise<void> {
  await db.pool.query('CREATE SCHEMA IF NOT EXISTS onceport');
  await db.pool.query('CREATE TABLE IF NOT EXISTS onceport.schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
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

  it('adopts the ids the old runner recorded and applies none of them again', async () => {
    // Re-applying 001 would fail: its tables exist.
    await expect(runMigrations(db.url, eventStoreMigrations)).resolves.toEqual([]);
    await expect(runMigrations(db.url, eventStoreMigrations, { serviceRole: null })).resolves.toEqual([]);
  });

  it('applies only a new step, records it once, and keeps the old record as it was', async () => {
    const next = sqlMigration('950-after-upgrade', 'CREATE TABLE onceport.after_upgrade (id int)');
    const results = await Promise.all([runMigrations(db.url, [...eventStoreMigrations, next]), runMigrations(db.url, [...eventStoreMigrations, next])]);
    expect(results.flat()).toEqual(['950-after-upgrade']);
    const record = await db.pool.query<{ name: string }>('SELECT name FROM onceport.mikro_orm_migrations ORDER BY id');
    expect(record.rows.map((row) => row.name)).toEqual([...eventStoreMigrations.map((step) => step.id), '950-after-upgrade']);
    const old = await db.pool.query<{ id: string }>('SELECT id FROM onceport.schema_migrations ORDER BY id');
    expect(old.rows.map((row) => row.id)).toEqual(eventStoreMigrations.map((step) => step.id));
  });
});
