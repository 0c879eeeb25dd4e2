import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type HttpUpstream, startHttpUpstream, stdioUpstreamCommand } from '@onceport/test-upstream';
import { parseDocument } from 'yaml';
import { runOnceport } from '../testing/run-cli-in-process';
import { parseImported } from './testing/imported-file';

describe('contracts import over Streamable HTTP (the test upstream), re-runs, and failures', () => {
  let dir: string;
  let upstream: HttpUpstream;
  const file = () => join(dir, 'upstream.yaml');
  const importTo = (...extra: string[]) => runOnceport(['contracts', 'import', '--from-mcp', upstream.url, '--out', file(), ...extra]);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'onceport-import-'));
    upstream = await startHttpUpstream({ stateDir: join(dir, 'state') });
  });

  afterEach(async () => {
    await upstream.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes a new file: the http upstream, every page of tools, a credential by reference only', async () => {
    upstream.setCatalog({ pageSize: 1 });
    const run = await runOnceport(
      ['contracts', 'import', '--from-mcp', upstream.url, '--token-env', 'UPSTREAM_TOKEN', '--prefix', 'up_', '--out', file()],
      { UPSTREAM_TOKEN: 'tok-secret-123' },
    );

    expect(run).toMatchObject({ code: 0, stdout: '' });
    expect(run.stderr).toContain('wrote 4 tools of upstream onceport-test-upstream');
    const text = readFileSync(file(), 'utf8');
    const imported = parseImported(text);
    expect(imported.upstreams).toEqual([
      {
        name: 'onceport-test-upstream',
        transport: 'http',
        url: upstream.url,
        auth: 'bearer',
        credential_ref: 'onceport-test-upstream-token',
      },
    ]);
    expect(imported.tools.map((tool) => [tool.name, tool.target.tool])).toEqual([
      ['up_record_effect', 'record_effect'],
      ['up_read_status', 'read_status'],
      ['up_slow_effect', 'slow_effect'],
      ['up_maybe_task', 'maybe_task'],
    ]);
    expect(imported.tools[0]?.roles).toEqual({ key: 'identity', note: 'generated' });
    expect(text).toContain('readOnlyHint=true');
    expect(text).not.toContain('tok-secret-123');
  });

  it('imports the same server over stdio: --env values written, a secret-looking one only by name', async () => {
    const { command, args, env } = stdioUpstreamCommand(join(dir, 'state'));
    const envOptions = Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`]);
    const run = await runOnceport(
      ['contracts', 'import', ...envOptions, '--env', 'UPSTREAM_API_KEY', '--name', 'local', '--from-mcp', '--', command, ...args],
      { UPSTREAM_API_KEY: 'key-secret-456' },
    );

    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(parseImported(run.stdout).upstreams).toEqual([
      { name: 'local', transport: 'stdio', command, args, env, credential_env: 'UPSTREAM_API_KEY', credential_ref: 'local-credential' },
    ]);
    expect(parseImported(run.stdout).tools).toHaveLength(4);
    expect(run.stdout).not.toContain('key-secret-456');
  });

  it('a re-run against an unchanged upstream says so, exits 0 and leaves the file alone', async () => {
    await importTo();
    const before = readFileSync(file(), 'utf8');

    const again = await importTo();

    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(again.stdout).toContain('upstream onceport-test-upstream is unchanged');
    expect(readFileSync(file(), 'utf8')).toBe(before);
  });

  it('a re-run after the upstream changed lists each change with a diff, exits 3, and keeps the operator’s choices', async () => {
    expect((await importTo()).code).toBe(0);
    // The operator's work: read_status left out, record_effect declared, their own layout (dashes at column 0).
    const doc = parseDocument(readFileSync(file(), 'utf8'));
    const tools = doc.get('tools') as { items: { get: (key: string) => unknown; set: (key: string, value: unknown) => void }[] };
    tools.items.splice(
      tools.items.findIndex((tool) => tool.get('name') === 'read_status'),
      1,
    );
    tools.items[0]?.set('effect', 'irreversible');
    writeFileSync(file(), doc.toString({ indentSeq: false }));
    const operators = readFileSync(file(), 'utf8');
    upstream.setCatalog({ hiddenTools: ['slow_effect'], extraArguments: { record_effect: { priority: { type: 'integer', minimum: 1 } } } });

    const report = await importTo();

    expect(report.code).toBe(3);
    expect(report.stdout).toContain('upstream onceport-test-upstream changed');
    expect(report.stdout).toContain('added:   read_status (--write-new appends it)');
    expect(report.stdout).toContain('removed: slow_effect');
    expect(report.stdout).toContain('changed: record_effect');
    expect(report.stdout).toContain('+ properties.priority: {"minimum":1,"type":"integer"}');
    expect(readFileSync(file(), 'utf8')).toBe(operators);

    const appended = await importTo('--write-new');

    expect(appended.code).toBe(3);
    expect(appended.stdout).toContain('added:   read_status (appended as read_status: choose its roles and effect)');
    const after = readFileSync(file(), 'utf8');
    expect(after.startsWith(operators.trimEnd())).toBe(true);
    const parsed = parseImported(after);
    expect(parsed.tools.map((tool) => tool.name)).toEqual(['record_effect', 'slow_effect', 'maybe_task', 'read_status']);
    expect(parsed.tools[0]).toMatchObject({ effect: 'irreversible' });
    expect(parsed.tools[3]).toMatchObject({
      target: { upstream: 'onceport-test-upstream', tool: 'read_status' },
      roles: { key: 'identity' },
    });

    const third = await importTo('--write-new');
    expect(third.code).toBe(3);
    expect(third.stdout).not.toContain('added:');
    expect(readFileSync(file(), 'utf8')).toBe(after);
  });

  it('leaves out a tool whose input schema is over the bounds, naming it in the file and on stderr', async () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 40; level++) deep = { type: 'object', properties: { inner: deep } };
    upstream.setCatalog({ extraArguments: { slow_effect: { nested: deep } } });

    const run = await runOnceport(['contracts', 'import', '--from-mcp', upstream.url]);

    expect(run.code).toBe(0);
    expect(run.stderr).toBe('onceport: warning: not imported: slow_effect: its input schema nests deeper than 32 levels\n');
    expect(run.stdout).toContain('# Not imported: slow_effect: its input schema nests deeper than 32 levels.');
    expect(parseImported(run.stdout).tools.map((tool) => tool.name)).toEqual(['record_effect', 'read_status', 'maybe_task']);
  });

  it('refuses to compare a file without a tools: list, or without this upstream', async () => {
    writeFileSync(file(), 'not: a contract\n');
    expect(await importTo()).toMatchObject({ code: 1, stderr: expect.stringContaining('has no tools: list') });

    writeFileSync(
      file(),
      'upstreams:\n  - { name: a, transport: stdio, command: x }\n  - { name: b, transport: stdio, command: y }\ntools: []\n',
    );
    expect(await importTo()).toMatchObject({ code: 2, stderr: expect.stringContaining('has no upstream named "onceport-test-upstream"') });
  });

  describe('failures: one line on stderr and an exit code', () => {
    let refusing: Server;
    let base: string;
    beforeAll(async () => {
      refusing = createServer((req, res) => {
        if (req.url === '/needs-token') return void res.writeHead(401, { 'www-authenticate': 'Bearer' }).end('{}');
        res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>no MCP here</h1>');
      });
      await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => refusing.close(() => resolve())));

    it.each([
      ['nothing listens', () => ['--from-mcp', 'http://127.0.0.1:1/mcp'], 5, /cannot connect to http:\/\/127\.0\.0\.1:1\/mcp/],
      [
        'the server wants a credential',
        () => ['--from-mcp', `${base}/needs-token`],
        4,
        /refused the request \(HTTP 401\): give a credential/,
      ],
      ['a web server that is not MCP', () => ['--from-mcp', `${base}/mcp`], 1, /not an MCP server at .*: it answered HTTP 404/],
      [
        'a program that does not exist',
        () => ['--from-mcp', '--', '/nonexistent/mcp-server'],
        5,
        /cannot start "\/nonexistent\/mcp-server": ENOENT/,
      ],
      [
        'a program that exits instead of speaking MCP',
        () => ['--from-mcp', '--', process.execPath, '-e', 'process.stderr.write("FILES_ROOT is not set\\n"); process.exit(3)'],
        1,
        /exited or closed its output before answering as an MCP server; its stderr said: FILES_ROOT is not set/,
      ],
      [
        'a program that never answers',
        () => ['--timeout', '2s', '--from-mcp', '--', process.execPath, '-e', 'setTimeout(() => undefined, 60000)'],
        5,
        /no answer from the command .* within 2s \(raise it with --timeout\)/,
      ],
    ])('%s', async (_name, args, code, message) => {
      const run = await runOnceport(['contracts', 'import', ...args()]);
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code, stdout: '' });
      expect(run.stderr).toMatch(/^onceport: [^\n]+\n$/);
      expect(run.stderr).toMatch(message);
    });

    it('usage errors exit 2; a missing token exits 4', async () => {
      for (const args of [
        [],
        ['--from-mcp', 'http://x/mcp', '--', 'node'],
        ['--from-mcp', '--'],
        ['--header', 'Authorization: Bearer x', '--from-mcp', '--', 'node'],
        ['--from-mcp', 'not a url'],
        ['--from-mcp', 'ftp://example.com/mcp'],
        ['--from-mcp', 'http://user:pw@example.com/mcp'],
        ['--from-mcp', 'http://x/mcp', '--header', 'no colon'],
        ['--from-mcp', 'http://x/mcp', '--timeout', 'soon'],
        ['--from-mcp', 'http://x/mcp', '--prefix', 'has space'],
        ['--from-mcp', 'http://x/mcp', '--colour'],
        ['--from-mcp', 'http://x/mcp', 'extra'],
        ['--from-mcp', 'http://x/mcp', '--env', 'A=1'],
        ['--env', 'NOT SET', '--from-mcp', '--', 'node'],
        ['--env', 'SURELY_UNSET_VARIABLE', '--from-mcp', '--', 'node'],
      ]) {
        const run = await runOnceport(['contracts', 'import', ...args]);
        expect({ args, code: run.code }).toEqual({ args, code: 2 });
        expect(run.stderr).toMatch(/^onceport: [^\n]+\n$/);
      }
      expect(await runOnceport(['contracts', 'import', '--from-mcp', 'http://x/mcp', '--token-env', 'UNSET_TOKEN'])).toMatchObject({
        code: 4,
        stderr: expect.stringContaining('--token-env UNSET_TOKEN: the variable is not set'),
      });
      expect((await runOnceport(['contracts', 'import', '--name', 'Bad Name', '--from-mcp', upstream.url])).code).toBe(2);
    });
  });
});
