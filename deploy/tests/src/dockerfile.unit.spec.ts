import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Stage, execForm, readDockerfile } from './support/dockerfile';
import { DEPLOYED_APPS, WORKSPACE_ROOT } from './support/workspace';

/**
 * No Docker engine runs here, so the image is checked by reading the Dockerfile: the properties the
 * issue asks for, each stated once. (The build command itself runs for real in compiled-app.e2e.)
 */
describe('Dockerfile', () => {
  const { preamble, stages } = readDockerfile();
  const runtime = stages[stages.length - 1] as Stage;
  const stage = (name: string): Stage | undefined => stages.find((s) => s.name === name);
  const args = (s: Stage | undefined, keyword: string): string[] =>
    (s?.instructions ?? []).filter((i) => i.keyword === keyword).map((i) => i.args);

  it('is multi-stage from a pinned slim Node 20 image, with an APP build argument', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const nodeVersion = preamble.find((i) => i.keyword === 'ARG' && i.args.startsWith('NODE_VERSION='))?.args.split('=')[1];
    expect(nodeVersion).toMatch(/^20\.\d+\.\d+$/);
    for (const s of stages) expect(s.from).toMatch(/^node:\$\{NODE_VERSION\}-(bookworm-slim|alpine)/);
    expect(preamble.some((i) => i.keyword === 'ARG' && i.args === 'APP')).toBe(true);
    expect(args(runtime, 'ARG')).toContain('APP');
  });

  it('compiles in the build stage with tools/build (the command compiled-app.e2e runs) and ships only dist/ of that app', () => {
    const build = stage('build');
    expect(args(build, 'RUN').some((r) => r.includes('node -r @swc-node/register tools/build/cli.ts "$APP" --out-root /out'))).toBe(true);
    const copies = args(runtime, 'COPY');
    expect(copies).toContain('--from=build /out/${APP} ./dist');
    expect(copies.filter((c) => c.includes('--from=build'))).toHaveLength(1);
  });

  it("the console's image gets its front end: the console's esbuild script writes web/ beside its main.js (compiled-app.e2e serves it)", () => {
    expect(
      args(stage('build'), 'RUN').some((r) =>
        r.includes('if [ "$APP" = console ]; then node -r @swc-node/register apps/console/scripts/build-web.ts /out/console/web; fi'),
      ),
    ).toBe(true);
  });

  it('runtime: production dependencies only (npm ci --omit=dev), NODE_ENV=production, a non-root numeric user', () => {
    const copies = args(runtime, 'COPY');
    const dependencyStage = /^--from=(\S+) \/app\/node_modules/.exec(copies.find((c) => c.includes('node_modules')) ?? '')?.[1];
    expect(args(stage(dependencyStage ?? ''), 'RUN').some((r) => /npm ci --omit=dev\b/.test(r))).toBe(true);
    expect(args(runtime, 'ENV').join(' ')).toMatch(/\bNODE_ENV=production\b/);
    // The services bind 127.0.0.1 unless told otherwise; published ports reach a container's own address.
    expect(args(runtime, 'ENV').join(' ')).toMatch(/\bHOST=0\.0\.0\.0\b/);
    const user = args(runtime, 'USER').at(-1) ?? '';
    expect(user).toMatch(/^\d+(:\d+)?$/); // numeric: Kubernetes can verify runAsNonRoot
    expect(Number(user.split(':')[0])).toBeGreaterThan(0);
  });

  it('runs plain node on the compiled main.js in exec form behind tini, so SIGTERM reaches the app', () => {
    expect(execForm(args(runtime, 'ENTRYPOINT').at(-1) ?? '')).toEqual(['/usr/bin/tini', '--']);
    const command = execForm(args(runtime, 'CMD').at(-1) ?? '');
    expect(command).toEqual(['node', 'dist/main.js']);
    expect(JSON.stringify(command)).not.toMatch(/swc|register|ts-node/);
    expect(args(runtime, 'STOPSIGNAL')).toEqual(['SIGTERM']);
  });

  it('has a HEALTHCHECK that is a node one-liner against /healthz (compiled-app.e2e runs it)', () => {
    const healthcheck = execForm(args(runtime, 'HEALTHCHECK').at(-1) ?? '');
    expect(healthcheck?.slice(0, 2)).toEqual(['node', '-e']);
    expect(healthcheck?.[2]).toContain('/healthz');
  });

  it("the HEALTHCHECK's default port of each app is the port its Deployment declares", () => {
    const program = execForm(args(runtime, 'HEALTHCHECK').at(-1) ?? '')?.[2] ?? '';
    const defaults = Object.fromEntries(
      [...(/\{([^}]*)\}\[process\.env\.ONCEPORT_APP\]/.exec(program)?.[1] ?? '').matchAll(/(\w+):(\d+)/g)].map((m) => [m[1], Number(m[2])]),
    );
    const declared = Object.fromEntries(
      DEPLOYED_APPS.map((app) => {
        const manifest = readFileSync(join(WORKSPACE_ROOT, 'deploy/k8s/base', app, 'deployment.yaml'), 'utf8');
        return [app, Number(/name: http, containerPort: (\d+)/.exec(manifest)?.[1])];
      }),
    );
    expect(defaults).toEqual(declared);
  });

  it('.dockerignore sends only the manifests, sources and build tool (no node_modules, dist, .git, tests)', () => {
    const ignore = readFileSync(join(WORKSPACE_ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    expect(ignore[0]).toBe('*');
    expect(ignore.filter((l) => l.startsWith('!')).sort()).toEqual(
      [
        '!apps/*/src/**',
        '!apps/console/scripts/*.ts',
        '!apps/console/web/**',
        '!libs/*/src/**',
        '!package-lock.json',
        '!package.json',
        '!tools/build/*.ts',
        '!tsconfig.base.json',
      ].sort(),
    );
    expect(ignore).toEqual(expect.arrayContaining(['**/*.spec.ts', '**/testing/**']));
  });
});
