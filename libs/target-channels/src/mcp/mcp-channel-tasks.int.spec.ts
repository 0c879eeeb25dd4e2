import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { McpToolContract, McpUpstream } from '@onceport/domain';
import { type HttpUpstream, endTasks, readEffects, startHttpUpstream, stdioUpstreamCommand } from '@onceport/test-upstream';
import { McpChannel } from './mcp-channel';
import type { McpObserved, McpOutcome, McpTaskProbe } from './mcp-outcome';
import { EVERYTHING_SERVER, httpUpstream, mcpContract, stdioUpstream } from './testing/mcp-contract';

const documentOf = (outcome: McpOutcome | McpObserved) =>
  JSON.parse((outcome as McpObserved).body.toString('utf8')) as Record<string, unknown>;

/** A contract that asks its upstream for a task (probe: { kind: mcp_task }). */
function taskContract(upstream: McpUpstream, tool: string, timeoutMs: number): McpToolContract {
  const contract = mcpContract(upstream, tool, { timeoutMs });
  return { ...contract, probe: { kind: 'mcp_task' } };
}

/** Polls until `ok` holds: the tests wait for states, never for guessed times. */
async function until<T>(probe: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`state not reached within ${timeoutMs} ms; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let next = 0;
const executionId = () => `exe_01JTESTTASK${String(++next).padStart(14, '0')}`;

/**
 * Upstream tasks against real MCP servers: the test upstream (the 2026-07-28 Tasks extension, over
 * Streamable HTTP and stdio) and server-everything (the 2025-11-25 tasks of the v1 SDK, over stdio).
 * A task that ends within the call's timeout is observed; one still working is unknown with its
 * task id, and `probeTask` reads it until it ends — the effect applied once.
 */
describe('MCP channel: upstream tasks', () => {
  let channel: McpChannel;
  let stateDir: string;
  let upstream: HttpUpstream;

  beforeAll(async () => {
    channel = new McpChannel();
    stateDir = mkdtempSync(join(tmpdir(), 'onceport-mcp-tasks-'));
    // A task completes only when the test ends it: a call's timeout only has to outlast the answer that creates it.
    upstream = await startHttpUpstream({ stateDir, taskDelayMs: null });
  });
  afterAll(async () => {
    await channel.close();
    await upstream.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  const http = () => httpUpstream('tasks-http', upstream.url, { protocol: '2026-07-28' });

  it('a task still working when the call times out is unknown with its task id; probeTask reads it working, then completed with its result', async () => {
    const key = `working-${next}`;
    const outcome = await channel.send({
      contract: taskContract(http(), 'maybe_task', 3_000),
      executionId: executionId(),
      arguments: { key },
      credential: null,
    });
    expect(outcome).toMatchObject({
      kind: 'unknown',
      code: 'task_unfinished',
      upstreamTaskId: expect.stringMatching(/^tsk_[0-9a-f]{24}$/),
    });
    const taskId = (outcome as { upstreamTaskId: string }).upstreamTaskId;
    expect(upstream.effects({ key })).toHaveLength(1);

    const contract = taskContract(http(), 'maybe_task', 5_000);
    expect(await channel.probeTask({ contract, taskId, credential: null })).toMatchObject({
      kind: 'task',
      status: 'working',
      document: null,
    });
    expect(endTasks(stateDir)).toContain(taskId);
    const done = await channel.probeTask({ contract, taskId, credential: null });
    expect(done).toMatchObject({ kind: 'task', status: 'completed', document: { kind: 'observed', isError: false } });
    const document = documentOf((done as Extract<McpTaskProbe, { kind: 'task' }>).document as McpObserved);
    expect(document['structuredContent']).toEqual({ effect_id: upstream.effects({ key })[0]?.effect_id, key, replayed: false });
    expect(upstream.effects({ key })).toHaveLength(1);
  });

  it('a task that ends within the call timeout is observed with its result', async () => {
    const key = `quick-${next}`;
    const send = channel.send({
      contract: taskContract(http(), 'maybe_task', 20_000),
      executionId: executionId(),
      arguments: { key },
      credential: null,
    });
    // End the task once the upstream applied the effect (the call is then polling tasks/get).
    await until(
      async () => upstream.effects({ key }).length,
      (count) => count === 1,
    );
    await until(
      async () => endTasks(stateDir).length,
      (ended) => ended > 0,
    );
    const outcome = await send;
    expect(outcome).toMatchObject({ kind: 'observed', isError: false });
    expect(documentOf(outcome)['structuredContent']).toMatchObject({ key, replayed: false });
    expect(upstream.effects({ key })).toHaveLength(1);
  });

  it('a task that failed is an observed tool error: the tool ran, and failed', async () => {
    const key = `failed-${next}`;
    const outcome = await channel.send({
      contract: taskContract(http(), 'maybe_task', 3_000),
      executionId: executionId(),
      arguments: { key },
      credential: null,
    });
    const taskId = (outcome as { upstreamTaskId: string }).upstreamTaskId;
    endTasks(stateDir, 'failed');
    const failed = await channel.probeTask({ contract: taskContract(http(), 'maybe_task', 5_000), taskId, credential: null });
    expect(failed).toMatchObject({ kind: 'task', status: 'failed', document: { kind: 'observed', isError: true } });
    const document = documentOf((failed as Extract<McpTaskProbe, { kind: 'task' }>).document as McpObserved);
    expect(JSON.stringify(document['content'])).toContain('the tool failed after applying its effect');
  });

  it('a task id the upstream does not know is not_found (never "not applied"); an upstream that is gone is unreachable', async () => {
    const contract = taskContract(http(), 'maybe_task', 5_000);
    expect(await channel.probeTask({ contract, taskId: 'tsk_000000000000000000000000', credential: null })).toMatchObject({
      kind: 'not_found',
    });
    const gone = taskContract(httpUpstream('gone', 'http://127.0.0.1:1/mcp', { protocol: '2026-07-28' }), 'maybe_task', 1_000);
    expect(await channel.probeTask({ contract: gone, taskId: 'tsk_000000000000000000000000', credential: null })).toMatchObject({
      kind: 'unreachable',
    });
  });

  it('a contract without the mcp_task probe asks for no task: the same tool answers with its result', async () => {
    const key = `plain-${next}`;
    const outcome = await channel.send({
      contract: mcpContract(http(), 'maybe_task', { timeoutMs: 5_000 }),
      executionId: executionId(),
      arguments: { key },
      credential: null,
    });
    expect(outcome).toMatchObject({ kind: 'observed', isError: false });
  });

  it('stdio: the task outlives the call; probeTask reads it through the supervised server', async () => {
    const { command, args, env } = stdioUpstreamCommand(stateDir, { taskDelayMs: null });
    const stdio = stdioUpstream('tasks-stdio', args, { command, env, protocol: '2026-07-28' });
    const key = `stdio-${next}`;
    // Start the supervised server first (a plain call, generous timeout): the task call's own timeout
    // must measure the upstream's answer, not a cold process start on a loaded machine.
    const warm = await channel.send({
      contract: mcpContract(stdio, 'maybe_task', { timeoutMs: 30_000 }),
      executionId: executionId(),
      arguments: { key: `${key}-warm` },
      credential: null,
    });
    expect(warm).toMatchObject({ kind: 'observed' });
    const outcome = await channel.send({
      contract: taskContract(stdio, 'maybe_task', 3_000),
      executionId: executionId(),
      arguments: { key },
      credential: null,
    });
    expect(outcome).toMatchObject({ kind: 'unknown', upstreamTaskId: expect.stringMatching(/^tsk_/) });
    const taskId = (outcome as { upstreamTaskId: string }).upstreamTaskId;
    endTasks(stateDir);
    const done = await channel.probeTask({ contract: taskContract(stdio, 'maybe_task', 5_000), taskId, credential: null });
    expect(done).toMatchObject({ kind: 'task', status: 'completed', document: { isError: false } });
    expect(readEffects(stateDir, { key })).toHaveLength(1);
  });

  describe('server-everything (2025-11-25 tasks, stdio): simulate-research-query requires a task', () => {
    const everything = () => stdioUpstream('everything-tasks', [EVERYTHING_SERVER, 'stdio']);

    it('a task followed to the end within the timeout is observed', async () => {
      const outcome = await channel.send({
        contract: taskContract(everything(), 'simulate-research-query', 30_000),
        executionId: executionId(),
        arguments: { topic: 'execution identity' },
        credential: null,
      });
      expect(outcome).toMatchObject({ kind: 'observed', isError: false });
      expect(JSON.stringify(documentOf(outcome)['content'])).toContain('execution identity');
    });

    it('past the timeout it is unknown with the task id, and probeTask reads it completed (tasks/result)', async () => {
      const outcome = await channel.send({
        // Its four stages take 4 s: 1.5 s leaves it working, with room for a loaded machine to get the task answer back.
        contract: taskContract(everything(), 'simulate-research-query', 1_500),
        executionId: executionId(),
        arguments: { topic: 'lost answers' },
        credential: null,
      });
      expect(outcome).toMatchObject({ kind: 'unknown', code: 'task_unfinished', upstreamTaskId: expect.any(String) });
      const taskId = (outcome as { upstreamTaskId: string }).upstreamTaskId;
      const contract = taskContract(everything(), 'simulate-research-query', 10_000);
      const done = await until(
        () => channel.probeTask({ contract, taskId, credential: null }),
        (probe) => probe.kind === 'task' && probe.status !== 'working',
      );
      expect(done).toMatchObject({ kind: 'task', status: 'completed', document: { kind: 'observed', isError: false } });
      expect(JSON.stringify(documentOf((done as { document: McpObserved }).document)['content'])).toContain('lost answers');
    });
  });
});
