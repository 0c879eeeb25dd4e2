import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHttpUpstream } from '@onceport/test-upstream';
import { McpChannel } from './mcp-channel';
import type { McpObserved, McpOutcome } from './mcp-outcome';
import { EVERYTHING_SERVER, FILESYSTEM_SERVER, httpUpstream, mcpContract, stdioUpstream } from './testing/mcp-contract';

const documentOf = (outcome: McpOutcome) => JSON.parse((outcome as McpObserved).body.toString('utf8')) as Record<string, unknown>;

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** server-everything over Streamable HTTP as its own process; resolves once it accepts connections. */
async function startEverythingHttp(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EVERYTHING_SERVER, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: 'pipe',
  });
  child.stdout?.resume();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server-everything did not start listening within 20 s')), 20_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}`)));
  });
  return child;
}

/**
 * The MCP channel against real MCP servers from npm: @modelcontextprotocol/server-filesystem over
 * stdio (a supervised child process) and @modelcontextprotocol/server-everything over stdio and
 * Streamable HTTP. Each call's outcome is one of observed / failed before send / unknown.
 */
describe('MCP channel against real npm MCP servers', () => {
  let channel: McpChannel;
  let root: string;
  let httpServer: ChildProcess | null = null;

  beforeAll(() => {
    channel = new McpChannel();
    root = mkdtempSync(join(tmpdir(), 'onceport-mcp-fs-'));
  });
  afterAll(async () => {
    await channel.close();
    httpServer?.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  const files = () => stdioUpstream('files', [FILESYSTEM_SERVER, root]);
  const everything = (overrides = {}) => stdioUpstream('everything', [EVERYTHING_SERVER, 'stdio'], overrides);

  it('server-filesystem (stdio): write_file applies once and its result is kept as the upstream sent it', async () => {
    const path = join(root, 'one.txt');
    const outcome = await channel.send({
      contract: mcpContract(files(), 'write_file'),
      executionId: 'exe_01JTESTWRITE0000000000000A',
      arguments: { path, content: 'written once' },
      credential: null,
    });
    expect(outcome).toMatchObject({
      kind: 'observed',
      isError: false,
      truncated: false,
      contentType: 'application/vnd.onceport.mcp-result+json',
    });
    expect(documentOf(outcome)).toMatchObject({
      content: [{ type: 'text', text: expect.stringContaining('Successfully wrote') }],
      isError: false,
    });
    expect(readFileSync(path, 'utf8')).toBe('written once');
  });

  it('a tool error (isError) is an observed outcome, not an unknown one', async () => {
    const outcome = await channel.send({
      contract: mcpContract(files(), 'read_text_file'),
      executionId: 'exe_01JTESTREAD00000000000000A',
      arguments: { path: join(root, 'missing.txt') },
      credential: null,
    });
    expect(outcome).toMatchObject({ kind: 'observed', isError: true });
  });

  it('the stdio server dies between calls: the next call starts it again (supervised), nothing is lost', async () => {
    const contract = mcpContract(files(), 'write_file');
    // The session's process, found through a call that succeeded.
    await channel.send({
      contract,
      executionId: 'exe_01JTESTKILL00000000000000A',
      arguments: { path: join(root, 'a.txt'), content: 'a' },
      credential: null,
    });
    const before = await pidsOf('server-filesystem');
    expect(before.length).toBeGreaterThan(0);
    for (const pid of before) process.kill(pid, 'SIGKILL');
    // Gone for good (reaped, not a zombie): the dispatcher's process has seen it exit.
    await until(async () => before.every((pid) => !existsSync(`/proc/${pid}`)));
    const outcome = await channel.send({
      contract,
      executionId: 'exe_01JTESTKILL00000000000000B',
      arguments: { path: join(root, 'b.txt'), content: 'b' },
      credential: null,
    });
    expect(outcome).toMatchObject({ kind: 'observed', isError: false });
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('b');
  });

  it('server-everything (stdio): images and structured content come back as sent; arguments the tool refuses are a tool error (observed)', async () => {
    const image = await channel.send({
      contract: mcpContract(everything(), 'get-tiny-image'),
      executionId: 'exe_01JTESTIMAGE0000000000000A',
      arguments: {},
      credential: null,
    });
    expect(documentOf(image)['content']).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'image', mimeType: 'image/png', data: expect.any(String) })]),
    );
    const structured = await channel.send({
      contract: mcpContract(everything(), 'get-structured-content'),
      executionId: 'exe_01JTESTSTRUCT000000000000A',
      arguments: { location: 'Chicago' },
      credential: null,
    });
    expect(documentOf(structured)['structuredContent']).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) });
    const refused = await channel.send({
      contract: mcpContract(everything(), 'get-sum'),
      executionId: 'exe_01JTESTSUM000000000000000A',
      arguments: { a: 'x' },
      credential: null,
    });
    // The SDK's McpServer answers arguments that fail the tool's schema with a tool error: observed, not unknown.
    expect(refused).toMatchObject({ kind: 'observed', isError: true });
  });

  it('the credential reaches a stdio server through its env variable and never comes back in a result', async () => {
    const secret = 'sekret-upstream-4c1d9e';
    const upstream = everything({ name: 'everything-with-secret', credentialRef: 'everything', credentialEnv: 'UPSTREAM_TOKEN' });
    const outcome = await channel.send({
      contract: mcpContract(upstream, 'get-env'),
      executionId: 'exe_01JTESTENV0000000000000000A',
      arguments: {},
      credential: secret,
    });
    const text = (outcome as McpObserved).body.toString('utf8');
    expect(text).toContain('UPSTREAM_TOKEN');
    expect(text).not.toContain(secret);
    expect(text).toContain('[redacted]');
  });

  it('a call past its timeout is unknown (it may have been applied), never failed', async () => {
    const contract = mcpContract(everything(), 'trigger-long-running-operation', { timeoutMs: 500 });
    const outcome = await channel.send({
      contract,
      executionId: 'exe_01JTESTSLOW000000000000000A',
      arguments: { duration: 5, steps: 2 },
      credential: null,
    });
    expect(outcome).toMatchObject({ kind: 'unknown', code: 'timeout' });
  });

  it('a call timing out does not disturb another call in flight on the same stdio server', async () => {
    const upstream = everything({ name: 'everything-shared' });
    const slow = channel.send({
      contract: mcpContract(upstream, 'trigger-long-running-operation'),
      executionId: 'exe_01JTESTSHARED00000000000000A',
      // Longer than the SDK's grace when it closes a stdio server (stdin ended, SIGTERM 2 s later).
      arguments: { duration: 4, steps: 2 },
      credential: null,
    });
    const impatient = await channel.send({
      contract: mcpContract(upstream, 'trigger-long-running-operation', { timeoutMs: 300 }),
      executionId: 'exe_01JTESTSHARED00000000000000B',
      arguments: { duration: 6, steps: 2 },
      credential: null,
    });
    expect(impatient).toMatchObject({ kind: 'unknown', code: 'timeout' });
    expect(await slow).toMatchObject({ kind: 'observed', isError: false });
  });

  it('server-everything (Streamable HTTP): a call completes; after the server is gone, a call is failed before send', async () => {
    const port = await freePort();
    httpServer = await startEverythingHttp(port);
    const upstream = httpUpstream('everything-http', `http://127.0.0.1:${port}/mcp`);
    const echo = await channel.send({
      contract: mcpContract(upstream, 'echo'),
      executionId: 'exe_01JTESTECHO000000000000000A',
      arguments: { message: 'hello' },
      credential: null,
    });
    expect(documentOf(echo)).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('hello') }] });

    httpServer.kill('SIGKILL');
    await new Promise((resolve) => httpServer?.once('exit', resolve));
    const refused = await channel.send({
      contract: mcpContract(upstream, 'echo'),
      executionId: 'exe_01JTESTECHO000000000000000B',
      arguments: { message: 'again' },
      credential: null,
    });
    expect(refused).toMatchObject({ kind: 'failed_before_send', retryable: true });
  });

  it('an HTTP upstream that goes away once it applied the call (the test upstream) is unknown, never failed', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'onceport-mcp-cut-'));
    const upstream = await startHttpUpstream({ stateDir });
    try {
      const slow = channel.send({
        contract: mcpContract(httpUpstream('test-upstream', upstream.url), 'slow_effect'),
        executionId: 'exe_01JTESTCUT0000000000000000A',
        arguments: { key: 'cut', ms: 60_000 },
        credential: null,
      });
      // Applied upstream (the ledger says so), answer not yet sent: now the server goes away.
      await until(async () => upstream.effects().some((e) => e.key === 'cut'));
      await upstream.stop();
      expect(await slow).toMatchObject({ kind: 'unknown' });
      expect(upstream.effects().filter((e) => e.executionId === 'exe_01JTESTCUT0000000000000000A')).toHaveLength(1);
    } finally {
      await upstream.stop();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});

async function pidsOf(marker: string): Promise<number[]> {
  const { readdirSync } = await import('node:fs');
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return (
          readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker) &&
          readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[3] === String(process.pid)
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
