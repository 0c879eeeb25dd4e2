import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { TEST_DATABASE_SERVER_URL, type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { Pool } from 'pg';
import { startAppProcess, writeGatewayFixture } from '@onceport/gateway-harness';

const WORKSPACE_ROOT = join(__dirname, '../../..');
const AGENT_KEY = `key-roles-${randomBytes(6).toString('hex')}`;

/** `apps/intake` run to its exit (the migrate-only step exits instead of listening). */
function runIntake(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const args = ['-r', '@swc-node/register', join(WORKSPACE_ROOT, 'apps/intake/src/main.ts')];
  const fullEnv = { ...process.env, SWC_NODE_PROJECT: join(WORKSPACE_ROOT, 'tsconfig.base.json'), PORT: '0', ...env };
  return new Promise((resolve) =>
    execFile(process.execPath, args, { cwd: WORKSPACE_ROOT, env: fullEnv, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

describe('intake as a process with two database roles (real PostgreSQL)', () => {
  const role = `onceport_svc_${randomBytes(4).toString('hex')}`;
  let server: Pool;
  let db: TestDatabase;
  let serviceUrl: string;

  beforeAll(async () => {
    server = new Pool({ connectionString: TEST_DATABASE_SERVER_URL, max: 1 });
    await server.query(`CREATE ROLE ${role} LOGIN`);
    db = await createTestDatabase();
    await db.pool.query('DROP SCHEMA onceport CASCADE'); // an empty database, as a new install has
    const url = new URL(db.url);
    url.username = role;
    serviceUrl = url.toString();
  });
  afterAll(async () => {
    await db.drop();
    await server.query(`DROP ROLE IF EXISTS ${role}`);
    await server.end();
  });

  it('as the service role on an unmigrated database, stops with exit 78 saying to run the migrate-only step as the owner', async () => {
    const fixture = writeGatewayFixture(
      'http://127.0.0.1:9',
      [{ id: 'agent:roles', key: AGENT_KEY, tools: '*' }],
      serviceUrl,
      'nats://127.0.0.1:9',
    );
    const result = await runIntake(fixture.env({ ONCEPORT_DELIVERY: 'in_process' }));
    expect(result.code).toBe(78);
    expect(result.stderr).toContain('intake: the schema needs migrations 001-event-store');
    expect(result.stderr).toContain(
      'run the migrate-only step (ONCEPORT_MIGRATE_ONLY=true) as the owner role (ONCEPORT_MIGRATION_DATABASE_URL)',
    );
  }, 150_000);

  it('migrates as the owner and grants the service role, then serves calls as the service role', async () => {
    const migrated = await runIntake({
      ONCEPORT_MIGRATE_ONLY: 'true',
      ONCEPORT_MIGRATION_DATABASE_URL: db.url,
      DATABASE_URL: serviceUrl,
      ONCEPORT_DATABASE_SERVICE_ROLE: role,
    });
    expect(migrated).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(migrated.stdout.trim())).toMatchObject({
      service: 'intake',
      event: 'migrated',
      applied: expect.arrayContaining(['001-event-store']),
    });
    const grants = await db.pool.query<{ privilege_type: string }>(
      "SELECT privilege_type FROM information_schema.role_table_grants WHERE grantee = $1 AND table_schema = 'onceport' AND table_name = 'events' ORDER BY 1",
      [role],
    );
    expect(grants.rows.map((row) => row.privilege_type)).toEqual(['INSERT', 'SELECT']);

    const fixture = writeGatewayFixture(
      'http://127.0.0.1:9',
      [{ id: 'agent:roles', key: AGENT_KEY, tools: '*' }],
      serviceUrl,
      'nats://127.0.0.1:9',
    );
    const intake = await startAppProcess('intake', fixture.env({ ONCEPORT_DELIVERY: 'in_process', ONCEPORT_ANSWER_WAIT_MS: '0' }), {
      timeoutMs: 120_000,
    });
    try {
      const response = await fetch(`${intake.url}/v1/executions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${AGENT_KEY}` },
        body: JSON.stringify({ tool: 'get_build_status', arguments: { build_id: 7 } }),
      });
      expect(response.status).toBeLessThan(300);
      const { execution_id: executionId } = (await response.json()) as { execution_id: string };
      const written = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM onceport.events WHERE stream_id = $1', [
        `execution-${executionId}`,
      ]);
      expect(Number(written.rows[0]?.n)).toBeGreaterThan(0);
    } finally {
      await intake.stop();
    }
  }, 240_000);
});
