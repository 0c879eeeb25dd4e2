import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { type Gateway, startGateway } from '@onceport/gateway-harness';
import { TestNatsServer } from '@onceport/messaging/testing';
import { type TestTarget, startTestTarget } from '@onceport/test-target';
import { type Answer, KEYS } from './pipeline-harness';

const FILESYSTEM_SERVER = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

/** The filesystem server's tools behind Onceport: effects declared here, never taken from the server's hints. */
function filesContracts(root: string): string {
  return `
upstreams:
  - name: files
    transport: stdio
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(FILESYSTEM_SERVER)}, ${JSON.stringify(root)}]
    connect_timeout: 20s
tools:
  - name: write_file
    description: Create or replace a file.
    channel: mcp
    target: { upstream: files }
    arguments:
      type: object
      properties: { path: { type: string }, content: { type: string } }
      required: [path, content]
    roles: { path: identity, content: generated }
    effect: idempotent
    ledger_retention: 1h
  - name: move_file
    description: Move a file.
    channel: mcp
    target: { upstream: files }
    arguments:
      type: object
      properties: { source: { type: string }, destination: { type: string } }
      required: [source, destination]
    roles: { source: identity, destination: identity }
  - name: read_text_file
    description: Read a file.
    channel: mcp
    target: { upstream: files }
    arguments:
      type: object
      properties: { path: { type: string } }
      required: [path]
    roles: { path: identity }
    effect: none
`;
}

/**
 * A real MCP server from npm behind Onceport: @modelcontextprotocol/server-filesystem over stdio, run
 * and supervised by the dispatcher, called by an agent with the official v2 client through intake
 * (separate processes, JetStream, PostgreSQL). Its tools get execution identity like HTTP targets.
 */
describe('MCP upstreams: server-filesystem behind Onceport (real processes)', () => {
  let db: TestDatabase;
  let nats: TestNatsServer;
  let target: TestTarget;
  let gateway: Gateway;
  let root: string;
  let agent: Client;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'onceport-files-'));
    [db, nats, target] = await Promise.all([createTestDatabase(), TestNatsServer.start(), startTestTarget()]);
    gateway = await startGateway({
      targetUrl: target.url,
      actors: [{ id: 'agent:a', key: KEYS.a, tools: '*' }],
      database: db,
      nats,
      contracts: { 'files.yaml': filesContracts(root) },
      env: { ONCEPORT_ANSWER_WAIT_MS: '15000' },
      startOrder: [['authorization', 'dispatcher', 'reconciler'], ['intake']],
    });
    agent = new Client({ name: 'files-agent', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.process('intake').url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${KEYS.a}` } },
      }),
    );
  }, 180_000);

  afterAll(async () => {
    await agent?.close().catch(() => undefined);
    await gateway?.stop();
    await Promise.all([target?.stop(), nats?.stop()]);
    await db?.drop();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  const answerOf = (result: unknown): Answer => (result as { structuredContent: Answer }).structuredContent;

  it("tools/list shows each tool's declared effect, not the server's hints (move_file: undeclared, so the worst case)", async () => {
    const { tools } = await agent.listTools();
    const write = tools.find((t) => t.name === 'write_file');
    const move = tools.find((t) => t.name === 'move_file');
    expect(write?.description).toMatch(/Effect: idempotent/);
    // The server says move_file is not read-only and not idempotent, but Onceport never asked it: undeclared is irreversible.
    expect(move?.description).toMatch(/Effect: irreversible \(not declared/);
    expect(move?.annotations).toMatchObject({ destructiveHint: true, idempotentHint: false });
  });

  it('write_file runs once, with the server’s own content blocks handed back; the same call again is a ledger hit, the file is not written twice', async () => {
    const path = join(root, 'notes.txt');
    const call = { name: 'write_file', arguments: { path, content: 'first and only' } };
    const first = await agent.callTool(call);
    expect(answerOf(first)).toMatchObject({ state: 'completed', target_status: 0, attached: false });
    expect(first.content).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'text', text: expect.stringContaining('Successfully wrote') })]),
    );
    expect(readFileSync(path, 'utf8')).toBe('first and only');
    const written = statSync(path).mtimeMs;

    const again = await agent.callTool(call);
    expect(answerOf(again)).toMatchObject({ execution_id: answerOf(first).execution_id, attached: true, replay: true });
    expect(statSync(path).mtimeMs).toBe(written);
  });

  it("a tool error from the server (a path outside its root) is the call's failed outcome, not an unknown one", async () => {
    const outside = await agent.callTool({ name: 'write_file', arguments: { path: '/etc/onceport-should-not-exist', content: 'x' } });
    expect(outside.isError).toBe(true);
    expect(answerOf(outside)).toMatchObject({ state: 'failed', target_status: 1 });
  });

  it('read_text_file (effect none) reads what write_file wrote', async () => {
    const read = await agent.callTool({ name: 'read_text_file', arguments: { path: join(root, 'notes.txt') } });
    expect(answerOf(read)).toMatchObject({ state: 'completed' });
    expect(read.content).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'text', text: 'first and only' })]));
  });
});
