import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { type Gateway, startGateway } from '@onceport/gateway-harness';
import { TestNatsServer } from '@onceport/messaging/testing';
import { type TestTarget, startTestTarget } from '@onceport/test-target';
import { type HttpUpstream, endTasks, startHttpUpstream } from '@onceport/test-upstream';
import { type Answer, KEYS, storedEventTypes } from './pipeline-harness';

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
    # The server documents no idempotency key and MCP tools have no probe here: idempotent would be a
    # blind re-send (refused at load). The ledger still turns the same call into a hit.
    effect: irreversible
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
    // Declared irreversible here although the server hints idempotentHint: the contract's word, not the server's.
    expect(write?.description).toMatch(/Effect: irreversible\. /);
    expect(write?.annotations).toMatchObject({ destructiveHint: true, idempotentHint: false });
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

/** The test upstream's maybe_task behind Onceport: the contract asks for a task and polls it (probe mcp_task). */
function taskContracts(url: string): string {
  return `
upstreams:
  - name: tasks
    transport: http
    url: ${url}
    connect_timeout: 10s
tools:
  - name: record_in_task
    description: Record an effect; the upstream answers with a task.
    channel: mcp
    # Shorter than the task: the dispatcher stops waiting while it is still working.
    target: { upstream: tasks, tool: maybe_task, timeout: 1s }
    arguments:
      type: object
      properties: { key: { type: string } }
      required: [key]
    roles: { key: identity }
    effect: irreversible
    probe: { kind: mcp_task }
`;
}

/**
 * An upstream task through the real apps: the test upstream (Streamable HTTP) answers maybe_task with a
 * task that stays working until the test ends it. The dispatcher stops following it at the tool's
 * timeout (OutcomeUnknown with the task id), and the reconciler settles the execution by polling
 * tasks/get — never by sending the call again.
 */
describe('MCP upstreams: a task still working at the timeout is settled by polling it (real processes)', () => {
  let db: TestDatabase;
  let nats: TestNatsServer;
  let target: TestTarget;
  let upstream: HttpUpstream;
  let gateway: Gateway;
  let stateDir: string;
  let agent: Client;

  beforeAll(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'onceport-upstream-tasks-'));
    [db, nats, target, upstream] = await Promise.all([
      createTestDatabase(),
      TestNatsServer.start(),
      startTestTarget(),
      // Its tasks never end on their own: endTasks ends them.
      startHttpUpstream({ stateDir, taskDelayMs: null }),
    ]);
    gateway = await startGateway({
      targetUrl: target.url,
      actors: [{ id: 'agent:a', key: KEYS.a, tools: '*' }],
      database: db,
      nats,
      contracts: { 'tasks.yaml': taskContracts(upstream.url) },
      env: {
        ONCEPORT_ANSWER_WAIT_MS: '15000',
        ONCEPORT_RECONCILE_SWEEP_MS: '300',
        ONCEPORT_PROBE_BACKOFF_MS: '100',
        ONCEPORT_PROBE_BACKOFF_MAX_MS: '400',
      },
      startOrder: [['authorization', 'dispatcher', 'reconciler'], ['intake']],
    });
    agent = new Client({ name: 'tasks-agent', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.process('intake').url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${KEYS.a}` } },
      }),
    );
  }, 180_000);

  afterAll(async () => {
    await agent?.close().catch(() => undefined);
    await gateway?.stop();
    await Promise.all([target?.stop(), nats?.stop(), upstream?.stop()]);
    await db?.drop();
    rmSync(stateDir, { recursive: true, force: true });
  }, 60_000);

  const answerOf = (result: unknown): Answer => (result as { structuredContent: Answer }).structuredContent;

  /** The execution's stored events of one type, data included, read from PostgreSQL. */
  async function eventsOf(executionId: string, type: string): Promise<Record<string, unknown>[]> {
    const rows = await db.pool.query<{ data: Record<string, unknown> }>(
      'SELECT data FROM onceport.events WHERE stream_id = $1 AND event_type = $2 ORDER BY stream_version',
      [`execution-${executionId}`, type],
    );
    return rows.rows.map((row) => row.data);
  }

  async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function status(executionId: string): Promise<Answer & { timeline: { type: string }[] }> {
    const response = await fetch(`${gateway.process('intake').url}/v1/executions/${executionId}`, {
      headers: { authorization: `Bearer ${KEYS.a}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Answer & { timeline: { type: string }[] };
  }

  /** The call, answered unknown once the dispatcher stopped following the task, which is recorded by id. */
  async function callUntilUnknown(key: string): Promise<{ executionId: string; taskId: string }> {
    const first = await agent.callTool({ name: 'record_in_task', arguments: { key } });
    expect(answerOf(first)).toMatchObject({ state: 'dispatched_unknown', attached: false });
    const executionId = answerOf(first).execution_id;
    const [unknown] = await eventsOf(executionId, 'OutcomeUnknown');
    expect(unknown).toMatchObject({ upstreamTaskId: expect.stringMatching(/^tsk_[0-9a-f]{24}$/) });
    // The effect is applied upstream, and the reconciler only reads the task while it works: no second send.
    expect(upstream.effects({ key })).toHaveLength(1);
    return { executionId, taskId: String(unknown?.['upstreamTaskId']) };
  }

  it('completed: the execution is settled completed from the task, the effect applied once, and a retry gets the task’s content', async () => {
    const { executionId, taskId } = await callUntilUnknown('task-done');
    expect((await status(executionId)).state).toBe('dispatched_unknown');

    expect(endTasks(stateDir, 'completed')).toEqual([taskId]);
    const types = await waitFor(
      'the reconciler to settle the execution',
      () => storedEventTypes({ db }, executionId),
      (seen) => seen.includes('OutcomeSettled'),
    );
    expect(types.filter((type) => type === 'DispatchStarted')).toHaveLength(1);
    expect(await eventsOf(executionId, 'OutcomeSettled')).toEqual([
      expect.objectContaining({ settlement: 'completed', targetStatus: 0, reason: expect.stringContaining(taskId) }),
    ]);

    const asked = await status(executionId);
    expect(asked).toMatchObject({ state: 'completed_result_not_delivered', target_status: 0 });

    // The same call again: attached to the execution, handed the task's result as the upstream sent it.
    const again = await agent.callTool({ name: 'record_in_task', arguments: { key: 'task-done' } });
    expect(answerOf(again)).toMatchObject({ execution_id: executionId, attached: true, replay: true, state: 'completed' });
    expect(again.isError).toBeFalsy();
    const [effect] = upstream.effects({ key: 'task-done' });
    expect(again.content).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'text', text: `recorded effect ${effect?.effect_id} for key task-done` })]),
    );
    expect(upstream.effects({ key: 'task-done' })).toHaveLength(1);
    // Recorded once the answer was written: the task's result reached the agent.
    await waitFor(
      'the result to be recorded delivered',
      () => storedEventTypes({ db }, executionId),
      (seen) => seen.includes('ResultDelivered'),
    );
  });

  it('failed: the execution is settled failed (the tool ran and failed), never authorized or sent again', async () => {
    const { executionId, taskId } = await callUntilUnknown('task-failed');

    expect(endTasks(stateDir, 'failed')).toEqual([taskId]);
    await waitFor(
      'the reconciler to settle the execution',
      () => storedEventTypes({ db }, executionId),
      (seen) => seen.includes('OutcomeSettled'),
    );
    expect(await eventsOf(executionId, 'OutcomeSettled')).toEqual([
      expect.objectContaining({ settlement: 'failed', targetStatus: 1, reason: expect.stringContaining('the tool ran and failed') }),
    ]);
    const asked = await status(executionId);
    expect(asked).toMatchObject({ state: 'failed', target_status: 1 });
    const types = asked.timeline.map((entry) => entry.type);
    expect(types.filter((type) => type === 'ExecutionAuthorized')).toHaveLength(1);
    expect(types.filter((type) => type === 'DispatchStarted')).toHaveLength(1);
    expect(upstream.effects({ key: 'task-failed' })).toHaveLength(1);
  });
});
