import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { type Server, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type IntakeHarness, startIntakeHarness } from '../testing/intake-harness';
import { type McpTestServer, serveMcp } from '../testing/mcp-test-server';

const CONFORMANCE = join(require.resolve('@modelcontextprotocol/conformance/package.json'), '..', 'dist', 'index.js');

/** Runs one scenario of the official conformance suite; resolves with its exit code and output. */
function conformance(url: string, scenario: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CONFORMANCE, 'server', '--url', url, '--scenario', scenario],
      { timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

/** POSTs with exactly these headers (fetch would not send a Host of the caller's choosing); resolves with the status. */
function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: 'POST', headers, setHost: false }, (answer) => {
      answer.resume();
      resolve(answer.statusCode ?? 0);
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/**
 * The official MCP conformance suite (0.1.12) against intake's real MCP controller on loopback. The
 * suite sends no credentials, so it goes through a pass-through proxy that adds the agent's key and
 * changes nothing else (Host and Origin reach intake as the suite sent them).
 *
 * `server-sse-polling` is left out: against intake it checks nothing (0/0, three SHOULD warnings:
 * no priming event and no `retry` field on POST streams).
 */
describe('MCP conformance suite against intake (real PostgreSQL, real HTTP)', () => {
  let h: IntakeHarness;
  let mcp: McpTestServer;
  let proxy: Server;
  let url: string;

  beforeAll(async () => {
    h = await startIntakeHarness();
    mcp = await serveMcp(h, { 'conformance-key': 'agent:a' });
    proxy = createServer((req, res) => {
      const upstream = request(
        {
          host: '127.0.0.1',
          port: mcp.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, authorization: 'Bearer conformance-key' },
          setHost: false,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    proxy?.closeAllConnections();
    proxy?.close();
    await mcp?.close();
    await h?.close();
  });

  it.each(['dns-rebinding-protection', 'server-initialize', 'ping', 'tools-list', 'server-sse-multiple-streams'])(
    '%s passes',
    async (scenario) => {
      const result = await conformance(url, scenario);
      if (process.env['SHOW_CONFORMANCE']) process.stdout.write(result.output);
      expect({ scenario, code: result.code, failed: /FAILURE/.test(result.output) ? result.output : '' }).toEqual({
        scenario,
        code: 0,
        failed: '',
      });
      // A scenario that checked nothing (0/0) proves nothing: each of these has checks that succeeded.
      const passed = /Passed: (\d+)\/(\d+), 0 failed/.exec(result.output);
      expect(Number(passed?.[1] ?? 0)).toBeGreaterThan(0);
      expect(passed?.[1]).toBe(passed?.[2]);
    },
  );

  it('a rebinding request (Host and Origin evil.example) is refused with 403 before any session exists', async () => {
    const before = await h.db.pool.query('SELECT count(*)::int AS n FROM onceport.mcp_sessions');
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: 'Bearer conformance-key',
    };
    expect(await post(mcp.url, body, { ...headers, host: 'evil.example', origin: 'http://evil.example' })).toBe(403);
    expect(await post(mcp.url, body, { ...headers, host: `localhost:${mcp.port}`, origin: 'http://evil.example' })).toBe(403);
    expect(await post(mcp.url, body, { ...headers, host: 'evil.example:80' })).toBe(403);
    const after = await h.db.pool.query('SELECT count(*)::int AS n FROM onceport.mcp_sessions');
    expect(after.rows[0]).toEqual(before.rows[0]);
  });
});
