import { randomBytes } from 'node:crypto';
import { MigrationSetupError, PostgresEventStore, runMigrations, sqlMigration } from '@onceport/event-store';
import { TEST_DATABASE_SERVER_URL, type TestDatabase, createTestDatabase, testEvent } from '@onceport/event-store/testing';
import { Pool } from 'pg';
import { portReadinessChecks } from '../health/port-readiness';
import { openServicePorts } from '../ports/service-ports';
import { allMigrations, migrate } from './service-migrations';

/** Runs `sql` and answers the SQLSTATE it failed with (null when it succeeded). */
async function sqlState(pool: Pool, sql: string): Promise<string | null> {
  try {
    await pool.query(sql);
    return null;
  } catch (error) {
    return String((error as { code?: unknown }).code);
  }
}

describe('two database roles: the owner migrates, the services append and read (real PostgreSQL)', () => {
  const role = `onceport_svc_${randomBytes(4).toString('hex')}`;
  let db: TestDatabase;
  let server: Pool;
  let service: Pool;
  let serviceUrl: string;

  beforeAll(async () => {
    server = new Pool({ connectionString: TEST_DATABASE_SERVER_URL, max: 1 });
    await server.query(`CREATE ROLE ${role} LOGIN`);
    db = await createTestDatabase();
    // What the migrate-only step does as the owner, with ONCEPORT_DATABASE_SERVICE_ROLE set.
    await migrate(db.url, [], { serviceRole: role });
    const url = new URL(db.url);
    url.username = role;
    serviceUrl = url.toString();
    service = new Pool({ connectionString: serviceUrl, max: 4 });
  });
  afterAll(async () => {
    await service.end();
    await db.drop();
    await server.query(`DROP ROLE IF EXISTS ${role}`);
    await server.end();
  });

  it('lets the service role append to and read the event store', async () => {
    const store = new PostgresEventStore(service);
    await store.append('test-roles-1', [testEvent('Happened', { n: 1 })], { expectedVersion: 0 });
    await store.append('test-roles-1', [testEvent('Happened', { n: 2 })], { expectedVersion: 1 });
    expect((await store.readStream('test-roles-1')).map((event) => event.data)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('refuses the service role DISABLE TRIGGER, UPDATE, DELETE and TRUNCATE on the events table', async () => {
    await new PostgresEventStore(service).append('test-roles-2', [testEvent()], { expectedVersion: 0 });
    // 42501 insufficient_privilege (ALTER: "must be owner of table events"): refused before any trigger runs.
    expect(await sqlState(service, 'ALTER TABLE onceport.events DISABLE TRIGGER events_append_only')).toBe('42501');
    expect(await sqlState(service, 'ALTER TABLE onceport.events DISABLE TRIGGER ALL')).toBe('42501');
    expect(await sqlState(service, "UPDATE onceport.events SET data = '{}'::jsonb")).toBe('42501');
    expect(await sqlState(service, 'DELETE FROM onceport.events')).toBe('42501');
    expect(await sqlState(service, 'TRUNCATE onceport.events')).toBe('42501');
    expect(await sqlState(service, 'DROP TABLE onceport.events')).toBe('42501');
    const rows = await db.pool.query<{ n: string }>("SELECT count(*) AS n FROM onceport.events WHERE stream_id = 'test-roles-2'");
    expect(rows.rows[0]?.n).toBe('1');
  });

  it('lets the service role keep its working state (checkpoints) but not rewrite the migration record', async () => {
    expect(
      await sqlState(
        service,
        "INSERT INTO onceport.subscription_checkpoints (subscription_id, transaction_id, global_position) VALUES ('t', '1'::xid8, 0)",
      ),
    ).toBeNull();
    expect(
      await sqlState(service, "UPDATE onceport.subscription_checkpoints SET global_position = 1 WHERE subscription_id = 't'"),
    ).toBeNull();
    expect(await sqlState(service, "DELETE FROM onceport.mikro_orm_migrations WHERE name = '001-event-store'")).toBe('42501');
  });

  it('starts a service on a schema the owner migrated without creating anything, and says what to run when a step is missing', async () => {
    await expect(runMigrations(serviceUrl, allMigrations)).resolves.toEqual([]);
    const pending = sqlMigration('999-not-yet', 'CREATE TABLE onceport.not_yet (id int)');
    const refused = runMigrations(serviceUrl, [...allMigrations, pending]);
    await expect(refused).rejects.toBeInstanceOf(MigrationSetupError);
    await expect(refused).rejects.toThrow(/needs migrations 999-not-yet .*ONCEPORT_MIGRATE_ONLY=true.*ONCEPORT_MIGRATION_DATABASE_URL/);
  });

  it('runs a whole runtime as the service role: delivery started, an event appended, ready', async () => {
    const url = new URL(db.url);
    url.username = role;
    const ports = await openServicePorts({
      serviceName: 'roles-test',
      databaseUrl: url.toString(),
      delivery: 'in_process',
      natsUrl: 'nats://127.0.0.1:1',
      poolSize: 4,
      log: () => undefined,
    });
    try {
      await ports.store.append('test-roles-3', [testEvent()], { expectedVersion: 0 });
      const ready = await Promise.all(
        portReadinessChecks(ports.pool, ports.delivery).map(async (check) => [check.name, await check.probe().then(() => 'ok')]),
      );
      expect(Object.fromEntries(ready)).toEqual({ database: 'ok', delivery: 'ok' });
      // Its connections are named after the service, for an operator reading pg_stat_activity.
      const named = await ports.pool.query<{ name: string }>('SELECT current_setting($1) AS name', ['application_name']);
      expect(named.rows[0]?.name).toBe('onceport-roles-test');
    } finally {
      await ports.close();
    }
  });

  it('refuses to grant to a role that does not exist, or to the owner itself', async () => {
    await expect(migrate(db.url, [], { serviceRole: 'onceport_no_such_role' })).rejects.toThrow(
      'service role "onceport_no_such_role" does not exist: create it first',
    );
    await expect(migrate(db.url, [], { serviceRole: 'postgres' })).rejects.toThrow('is the role running the migrations (the owner)');
  });
});
