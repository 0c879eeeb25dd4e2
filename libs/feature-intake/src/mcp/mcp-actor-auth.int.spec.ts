import { once } from 'node:events';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ExecutionWatcher } from '../await-outcome/execution-watcher';
import type { IntakeDependencies } from '../intake-dependencies';
import { type IntakeHarness, startIntakeHarness } from '../testing/intake-harness';

const KEYS: Record<string, string> = { 'key-a': 'agent:a', 'key-b': 'agent:b' };

/**
 * MCP at a real intake controller over real PostgreSQL, opened by the SDK client: the API key is the
 * actor. A key used on another actor's session, or a request claiming another actor, is 401 with a
 * body that says why — and no execution is recorded.
 */
describe('MCP: the API key is the actor (real PostgreSQL, SDK client)', () => {
  let h: IntakeHarness;
  let server: Server;
  let watcher: ExecutionWatcher;
  let url: string;
  let client: Client;
  let sessionId: string;

  beforeAll(async () => {
    h = await startIntakeHarness();
    const deps: IntakeDependencies = { ...h.deps, actors: { authenticate: (token) => (KEYS[token] ? { id: KEYS[token] } : null) } };
    watcher = new ExecutionWatcher(h.ports.pool, () => undefined);
    await watcher.start();
    const controller = h.mcpController(deps, watcher);
    server = createServer((req, res) => void controller.handle(req, res));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    client = new Client({ name: 'actor-auth-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: 'Bearer key-a' } } });
    await client.connect(transport);
    sessionId = transport.sessionId ?? '';
  });
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    server?.closeAllConnections();
    server?.close();
    await watcher?.stop();
    await h?.close();
  });

  let rpcId = 100;
  async function rpc(
    key: string,
    message: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; text: string }> {
    rpcId += 1;
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: rpcId, ...message }),
    });
    return { status: response.status, text: await response.text() };
  }
  const deploy = (project: string, meta?: Record<string, unknown>) => ({
    method: 'tools/call',
    params: {
      name: 'create_deployment',
      arguments: { project, environment: 'staging', version: '1.0.0' },
      ...(meta ? { _meta: meta } : {}),
    },
  });
  const acceptedCount = async (): Promise<number> => (await h.allEvents()).filter((e) => e.type === 'ExecutionAccepted').length;

  it("another actor's key on a session: 401 that says the key does not belong to the session's actor, without naming it", async () => {
    const before = await acceptedCount();
    const reply = await rpc('key-b', deploy('session-of-a'));
    expect(reply.status).toBe(401);
    const body = JSON.parse(reply.text) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32001);
    expect(body.error.message).toMatch(/this API key does not belong to the actor of this MCP session/);
    expect(reply.text).not.toContain('agent:a');
    expect((await rpc('key-b', { method: 'tools/list' })).status).toBe(401);
    // A session intake never issued is still "not found": the client starts a new session.
    expect((await rpc('key-a', { method: 'tools/list' }, { 'mcp-session-id': 'never-issued' })).status).toBe(404);
    await sleep(300);
    expect(await acceptedCount()).toBe(before);
  });

  it('an actor claim in a header or in _meta naming another actor: 401 naming the mismatch, nothing recorded', async () => {
    const before = await acceptedCount();
    const inMeta = await rpc('key-a', deploy('claim-meta', { 'onceport/actor': 'agent:b' }));
    expect(inMeta.status).toBe(401);
    expect(inMeta.text).toMatch(
      /_meta \\"onceport\/actor\\" of tools\/call claims actor \\"agent:b\\", but this API key belongs to \\"agent:a\\"/,
    );
    const inHeader = await rpc('key-a', deploy('claim-header'), { 'x-onceport-actor': 'agent:b' });
    expect(inHeader.status).toBe(401);
    expect(inHeader.text).toMatch(/header x-onceport-actor claims actor/);
    await sleep(300);
    expect(await acceptedCount()).toBe(before);
  });

  it("the same request with the key's own actor in the claim goes through and is recorded for the authenticated actor", async () => {
    const before = await acceptedCount();
    const reply = await rpc('key-a', deploy('claim-own', { 'onceport/actor': 'agent:a' }), { 'onceport-actor': 'agent:a' });
    expect(reply.status).toBe(200);
    expect(reply.text).toContain('execution_id');
    const accepted = (await h.allEvents()).filter((e) => e.type === 'ExecutionAccepted');
    expect(accepted).toHaveLength(before + 1);
    expect(accepted.at(-1)?.data['actor']).toBe('agent:a');
  });
});
