import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bannerValue, freePort, portOpen, spawnNpmStart, waitFor, writeGatewayFixture } from '@onceport/gateway-harness';
import { startTestTarget } from '@onceport/test-target';
import { isRunning } from './process-facts';

const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);
const portOf = (url: string): number => Number(new URL(url).port);

/** The console's session API as its page calls it: the key once, an HttpOnly cookie back. */
async function consoleSignIn(consoleUrl: string, key: string): Promise<{ status: number; cookie: string }> {
  const response = await fetch(`${consoleUrl}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-onceport-console': '1' },
    body: JSON.stringify({ key }),
  });
  await response.arrayBuffer();
  return { status: response.status, cookie: response.headers.get('set-cookie') ?? '' };
}

/** `npm start` as a person runs it: one process, embedded PostgreSQL, real HTTP. Never the fixed default ports. */
describe('npm start (embedded)', () => {
  const cleanup: string[] = [];
  afterEach(() => {
    for (const path of cleanup.splice(0)) rmSync(path, { recursive: true, force: true });
  });
  /** A private data dir inside a `mktemp -d` folder (0700): what failed as root before. */
  const dataDirs = (): string => {
    const parent = mkdtempSync(join(tmpdir(), 'onceport-npm-start-'));
    cleanup.push(parent);
    return join(parent, 'data');
  };

  it('with no config: the demo (target, contracts, keys), private files, a first call through REST and MCP, the console signed in with the admin key, and a stop on SIGTERM', async () => {
    const dataDir = dataDirs();
    let consoleUrl = '';
    let gatewayPid = 0;
    const pgPort = await freePort();
    const start = spawnNpmStart({
      PORT: '0',
      ONCEPORT_DEMO_TARGET_PORT: '0',
      ONCEPORT_DATA_DIR: dataDir,
      ONCEPORT_EMBEDDED_PG_PORT: String(pgPort),
    });
    try {
      const url = await start.listening;
      const output = start.output();
      cleanup.push(bannerValue(output, 'postgres data'));
      gatewayPid = Number(readFileSync(join(dataDir, 'onceport.pid'), 'utf8').split('\n')[0]);
      expect(output).toContain(`${url}/mcp`);
      expect(output).toMatch(/contracts\s+demo: /);
      const apiKey = bannerValue(output, 'API key');
      expect(apiKey).toMatch(/^op_/);
      expect(output).toContain('curl -s');

      // Private: the data dir 0700, the database password and every file with keys or key hashes 0600.
      expect(modeOf(dataDir)).toBe('700');
      for (const file of ['postgres-password', 'actors.yaml', 'demo-secrets.json', 'onceport.pid'])
        expect([file, modeOf(join(dataDir, file))]).toEqual([file, '600']);
      const password = readFileSync(join(dataDir, 'postgres-password'), 'utf8').trim();
      expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(readFileSync(join(__dirname, 'embedded-postgres.ts'), 'utf8')).not.toContain(password);

      // The printed first call, run as printed (twice, as the banner suggests): one execution, the
      // second answer a replay of the first, and the demo target saw one e-mail.
      const curl = output.slice(output.indexOf('curl -s'), output.indexOf("}}'", output.indexOf('curl -s')) + 3);
      const runCurl = () =>
        JSON.parse(execFileSync('sh', ['-c', curl], { encoding: 'utf8', timeout: 60_000 })) as {
          execution_id: string;
          replay: boolean;
          state: string;
        };
      // Each call waits the default 10 s for its outcome: a first call on a loaded machine may take
      // longer (CI saw it) and is then told where it stands; the test waits on for the outcome.
      const completed = async <T extends { state: string }>(answer: T, executionId: string): Promise<T | { state: string }> =>
        answer.state.startsWith('completed')
          ? answer
          : await waitFor(`execution ${executionId} to complete`, async () => {
              const headers = { authorization: `Bearer ${apiKey}` };
              const body = (await (await fetch(`${url}/v1/executions/${executionId}`, { headers })).json()) as { state: string };
              return body.state.startsWith('completed') ? body : undefined;
            });
      const first = runCurl();
      expect(await completed(first, first.execution_id)).toMatchObject({
        execution_id: first.execution_id,
        state: expect.stringMatching(/^completed/),
      });
      const second = runCurl();
      expect(second).toMatchObject({ execution_id: first.execution_id, replay: true });
      const targetUrl = bannerValue(output, 'demo target');
      const effects = (await (await fetch(`${targetUrl}/__control/effects?route=emails`)).json()) as { count: number };
      expect(effects.count).toBe(1);

      const client = new Client({ name: 'npm-start-test', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } }),
      );
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('create_deployment');
      const result = await client.callTool({
        name: 'create_deployment',
        arguments: { project: 'demo', environment: 'staging', version: '1.0.0' },
      });
      const called = result.structuredContent as { execution_id: string; state: string };
      expect(await completed(called, called.execution_id)).toMatchObject({
        state: expect.stringMatching(/^completed/),
        target_status: 201,
      });
      await client.close();

      // The console: its own process beside the gateway, its page built at start, signed in with the
      // admin key from the file the banner names; it reaches the gateway with that key.
      consoleUrl = bannerValue(output, 'console');
      const keyFile = join(dataDir, 'demo-secrets.json');
      expect(output).toContain(`${consoleUrl} — sign in with the admin key in ${keyFile}`);
      const page = await fetch(`${consoleUrl}/`);
      expect({ status: page.status, type: page.headers.get('content-type'), html: await page.text() }).toMatchObject({
        status: 200,
        type: 'text/html; charset=utf-8',
        html: expect.stringContaining('app.js'),
      });
      expect((await fetch(`${consoleUrl}/app.js`)).status).toBe(200);
      expect((await fetch(`${consoleUrl}/readyz`)).status).toBe(200);
      expect((await consoleSignIn(consoleUrl, 'adm_not-the-key')).status).toBe(401);
      const { adminKey } = JSON.parse(readFileSync(keyFile, 'utf8')) as { adminKey: string };
      expect(adminKey).toBe(bannerValue(output, 'admin key'));
      const signedIn = await consoleSignIn(consoleUrl, adminKey);
      expect(signedIn.status).toBe(200);
      expect(signedIn.cookie).toMatch(/HttpOnly/);
      expect(signedIn.cookie).not.toContain(adminKey);
      const vault = await fetch(`${consoleUrl}/api/vault`, { headers: { cookie: signedIn.cookie.split(';')[0] as string } });
      expect({ status: vault.status, body: await vault.json() }).toMatchObject({ status: 200, body: { status: 'unlocked' } });
    } finally {
      await start.stop();
    }
    // A graceful stop takes the console and the embedded PostgreSQL down with it and releases the
    // data dir, last, before the process exits (npm may exit before its child is done: wait for the child).
    await waitFor('the embedded start to exit', () => (isRunning(gatewayPid) ? undefined : true), 60_000).catch((error: Error) => {
      throw new Error(`${error.message}; it printed:\n${start.output().slice(-4000)}`);
    });
    expect({ lockLeft: existsSync(join(dataDir, 'onceport.pid')), output: '' }).toEqual({
      lockLeft: false,
      output: existsSync(join(dataDir, 'onceport.pid')) ? start.output().slice(-4000) : '',
    });
    expect(await portOpen(pgPort)).toBe(false);
    expect(await portOpen(portOf(consoleUrl))).toBe(false);
  });

  it("with the user's own contracts and actors (no demo): a call held at the target survives kill -9 and the orphaned PostgreSQL; the next start settles it, one effect", async () => {
    const target = await startTestTarget();
    const agentKey = 'op_e2e_own_agent_key_0123456789abcdef';
    const fixture = writeGatewayFixture(target.url, [{ id: 'agent:own', key: agentKey, tools: '*' }], 'unused', 'unused');
    cleanup.push(fixture.dir);
    const dataDir = dataDirs();
    const pgPort = await freePort();
    const env = {
      PORT: '0',
      ONCEPORT_DATA_DIR: dataDir,
      ONCEPORT_EMBEDDED_PG_PORT: String(pgPort),
      ONCEPORT_CONTRACTS_DIR: fixture.contractsDir,
      ONCEPORT_ACTORS_FILE: fixture.actorsFile,
      ONCEPORT_HMAC_KEYS: fixture.hmacKeys,
      // As the distributed dispatcher reads it: no demo credentials for the user's own tools.
      ONCEPORT_CREDENTIAL_DEPLOY_API: 'own-deploy-token',
      ONCEPORT_DISPATCH_LEASE: '1000',
      ONCEPORT_RECONCILE_SWEEP_MS: '500',
      ONCEPORT_PROBE_BACKOFF_MS: '200',
    };
    const first = spawnNpmStart(env);
    let second: ReturnType<typeof spawnNpmStart> | null = null;
    try {
      const url = await first.listening;
      const banner = first.output();
      cleanup.push(bannerValue(banner, 'postgres data'));
      expect(banner).toMatch(new RegExp(`contracts\\s+yours: ${fixture.contractsDir}`));
      expect(banner).toMatch(new RegExp(`actors\\s+yours: ${fixture.actorsFile}`));
      expect(banner).toContain('HMAC key       yours');
      expect(banner).not.toMatch(/^\s+(demo target|API key|admin key)\s|curl -s/m);
      expect(banner).toContain(`warning: ${fixture.actorsFile} holds key hashes and is readable by other users`);
      expect(banner).toContain(`— sign in with an admin key of the admins in ${fixture.actorsFile}`);
      const firstConsole = bannerValue(banner, 'console');

      // The target applies the effect and holds its answer: the call is in flight when the process dies.
      target.setBehavior({ route: 'deployments', delay_ms: 600_000, times: 1 });
      const call = await fetch(`${url}/v1/executions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${agentKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          tool: 'create_deployment',
          arguments: { project: 'web', environment: 'staging', version: '2.0.1' },
          wait_ms: 0,
        }),
      });
      const { execution_id: executionId } = (await call.json()) as { execution_id: string };
      expect(executionId).toMatch(/^exe_/);
      await waitFor(
        'the target to apply the effect',
        () => (target.effectCount({ route: 'deployments' }) === 1 ? true : undefined),
        60_000,
      );

      const gatewayPid = Number(readFileSync(join(dataDir, 'onceport.pid'), 'utf8').split('\n')[0]);
      const clusterDir = bannerValue(banner, 'postgres data');
      const postgresPid = Number(readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(gatewayPid, 'SIGKILL');
      await first.exited;
      // What the old start died of: its PostgreSQL outlives it and keeps the port. Its console
      // does not: it stops when the start that ran it is gone.
      expect(isRunning(postgresPid)).toBe(true);
      expect(await portOpen(pgPort)).toBe(true);
      await waitFor('the orphaned console to stop', async () => ((await portOpen(portOf(firstConsole))) ? undefined : true), 30_000);

      second = spawnNpmStart(env);
      const again = await second.listening;
      expect(second.output()).toContain(`the embedded PostgreSQL of an earlier start (pid ${postgresPid}) still runs`);
      expect(second.output()).toMatch(/onceport\.pid names pid \d+, which is gone/);
      expect(isRunning(postgresPid)).toBe(false);

      const settled = await waitFor('the reconciler to settle the call', async () => {
        const answer = (await (
          await fetch(`${again}/v1/executions/${executionId}`, { headers: { Authorization: `Bearer ${agentKey}` } })
        ).json()) as { state: string };
        return /^(completed|failed|needs_review|not_applied)/.test(answer.state) ? answer.state : undefined;
      });
      expect(settled).toBe('completed_result_not_delivered');
      expect(target.effectCount({ route: 'deployments' })).toBe(1);
    } finally {
      await first.stop();
      await second?.stop();
      await target.stop();
    }
  });

  it('a failed start says what failed and the fix, exits 78 and leaves no PostgreSQL running: a broken contract file, a port another program holds', async () => {
    const pgPort = await freePort();
    const contractsDir = mkdtempSync(join(tmpdir(), 'onceport-broken-contracts-'));
    cleanup.push(contractsDir);
    writeFileSync(join(contractsDir, 'tools.yaml'), 'tools:\n  - name: x\n   description: bad indent\n');
    const broken = spawnNpmStart({
      PORT: '0',
      ONCEPORT_DATA_DIR: dataDirs(),
      ONCEPORT_EMBEDDED_PG_PORT: String(pgPort),
      ONCEPORT_CONTRACTS_DIR: contractsDir,
    });
    await expect(broken.listening).rejects.toThrow();
    expect(await broken.exited).toBe(78); // npm passes the script's exit code on
    expect(broken.output()).toContain(`${join(contractsDir, 'tools.yaml')}:3: got a YAML syntax error`);
    expect(broken.output()).toContain('fix: correct the contract files named above (ONCEPORT_CONTRACTS_DIR)');
    expect(broken.output()).not.toContain('undefined');
    expect(await portOpen(pgPort)).toBe(false);

    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(pgPort, '127.0.0.1', resolve));
    try {
      const taken = spawnNpmStart({
        PORT: '0',
        ONCEPORT_DEMO_TARGET_PORT: '0',
        ONCEPORT_DATA_DIR: dataDirs(),
        ONCEPORT_EMBEDDED_PG_PORT: String(pgPort),
      });
      await expect(taken.listening).rejects.toThrow();
      expect(await taken.exited).toBe(78);
      expect(taken.output()).toContain(`port ${pgPort} on 127.0.0.1 (the embedded PostgreSQL) is in use by another program`);
      expect(taken.output()).toContain('fix: stop that program, or set ONCEPORT_EMBEDDED_PG_PORT to a free port');
      expect(taken.output()).not.toContain('undefined');
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it('refuses a data directory others can read that holds files, rather than changing its mode', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'onceport-open-dir-'));
    cleanup.push(parent);
    const open = join(parent, 'data');
    mkdirSync(open, { mode: 0o755 });
    writeFileSync(join(open, 'something'), '');
    const refused = spawnNpmStart({
      PORT: '0',
      ONCEPORT_DEMO_TARGET_PORT: '0',
      ONCEPORT_DATA_DIR: open,
      ONCEPORT_EMBEDDED_PG_PORT: String(await freePort()),
    });
    await expect(refused.listening).rejects.toThrow();
    expect(refused.output()).toContain(`the data directory ${open} is readable by others (mode 755)`);
    expect(refused.output()).toContain(`fix: chmod 700 ${open}`);
  });
});
