import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const ROOT = join(__dirname, '../../..');

/** `npm start` as a person runs it: one process, embedded PostgreSQL, demo target, a first call through MCP. */
describe('npm start (embedded)', () => {
  it('starts, prints the MCP URL and an API key, serves a demo tool call through MCP, and stops on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'onceport-npm-start-'));
    const pgPort = await freePort();
    const child = spawn('npm', ['start'], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', ONCEPORT_DEMO_TARGET_PORT: '0', ONCEPORT_DATA_DIR: dataDir, ONCEPORT_EMBEDDED_PG_PORT: String(pgPort) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`npm start did not come up:\n${output}`)), 150_000);
        child.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
        createInterface({ input: child.stdout }).on('line', (line) => {
          output += `${line}\n`;
          if (line.startsWith('{"service":"onceport"')) {
            clearTimeout(timer);
            resolve((JSON.parse(line) as { url: string }).url);
          }
        });
      });
      expect(output).toContain(`${url}/mcp`);
      const apiKey = /API key\s+(\S+)/.exec(output)?.[1] ?? '';
      expect(apiKey).toMatch(/^op_/);
      expect(output).toContain('curl -s');

      // The printed first call, run as printed (twice, as the banner suggests): one execution, the
      // second answer a replay of the first, and the demo target saw one e-mail.
      const curl = output.slice(output.indexOf('curl -s'), output.indexOf("}}'", output.indexOf('curl -s')) + 3);
      const runCurl = () => JSON.parse(execFileSync('sh', ['-c', curl], { encoding: 'utf8', timeout: 60_000 })) as { execution_id: string; replay: boolean; state: string };
      const first = runCurl();
      const second = runCurl();
      expect(first.state).toMatch(/^completed/);
      expect(second).toMatchObject({ execution_id: first.execution_id, replay: true });
      const targetUrl = /^\s+demo target\s+(\S+)/m.exec(output)?.[1] ?? '';
      const effects = (await (await fetch(`${targetUrl}/__control/effects?route=emails`)).json()) as { count: number };
      expect(effects.count).toBe(1);

      const client = new Client({ name: 'npm-start-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } }));
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('create_deployment');
      const result = await client.callTool({ name: 'create_deployment', arguments: { project: 'demo', environment: 'staging', version: '1.0.0' } });
      expect(result.structuredContent).toMatchObject({ state: 'completed_result_not_delivered', target_status: 201 });
      await client.close();
    } finally {
      if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
      await exited;
      // A graceful stop takes the embedded PostgreSQL down with it (npm itself exits by the signal).
      const deadline = Date.now() + 15_000;
      while ((await portOpen(pgPort)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      rmSync(dataDir, { recursive: true, force: true });
      expect(await portOpen(pgPort)).toBe(false);
    }
  });
});

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
