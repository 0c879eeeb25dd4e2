import { once } from 'node:events';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
  McpError,
  RELATED_TASK_META_KEY,
} from '@modelcontextprotocol/sdk/types.js';
import { ExecutionStatus } from '@onceport/contracts';
import type { AgentAnswer } from '../answer/agent-answer';
import { ExecutionWatcher } from '../await-outcome/execution-watcher';
import type { IntakeDependencies } from '../intake-dependencies';
import { type IntakeHarness, startIntakeHarness } from '../testing/intake-harness';
import { TASK_POLL_INTERVAL_MS, taskStatusOf } from './mcp-legacy-tasks';
import { EXECUTION_STATUS_TOOL } from './mcp-tool-catalog';

const KEYS: Record<string, string> = { 'key-a': 'agent:a', 'key-b': 'agent:b' };

/**
 * The MCP tasks primitive over executions, through the real SDK client and two "replicas" (two
 * controllers with their own services and watchers) over one PostgreSQL: a task created on one is
 * polled and fetched on the other. Nothing dispatches; tests move executions on themselves.
 */
describe('MCP tasks: a task is an execution (real PostgreSQL, two intake replicas, SDK client)', () => {
  let h: IntakeHarness;
  const servers: Server[] = [];
  const watchers: ExecutionWatcher[] = [];
  const clients: Client[] = [];
  let replicaA: string;
  let replicaB: string;

  async function replica(): Promise<string> {
    const deps: IntakeDependencies = {
      ...h.deps,
      actors: { authenticate: (token) => (KEYS[token] ? { id: KEYS[token] } : null) },
      settings: { ...h.deps.settings, maxWaitMs: 5_000 },
    };
    const watcher = new ExecutionWatcher(h.ports.pool, () => undefined);
    await watcher.start();
    watchers.push(watcher);
    const controller = h.mcpController(deps, watcher);
    const server = createServer((req, res) => void controller.handle(req, res));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  }

  async function connect(url: string, key = 'key-a'): Promise<Client> {
    const client = new Client({ name: 'tasks-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    h = await startIntakeHarness();
    replicaA = await replica();
    replicaB = await replica();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    await Promise.all(watchers.map((w) => w.stop()));
    await h?.close();
  });

  const deploy = (project: string) => ({ name: 'create_deployment', arguments: { project, environment: 'staging', version: '1.0.0' } });
  const createTask = (client: Client, project: string) =>
    client.request({ method: 'tools/call', params: { ...deploy(project), task: { ttl: 60_000 } } }, CreateTaskResultSchema);
  const answerOf = (result: unknown): AgentAnswer => (result as CallToolResult).structuredContent as unknown as AgentAnswer;

  it('declares task-augmented tools/call (no list, no cancel), and every contract tool may run as a task', async () => {
    const client = await connect(replicaA);
    expect(client.getServerCapabilities()?.tasks).toEqual({ requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    for (const tool of tools) expect(tool.execution?.taskSupport).toBe(tool.name === EXECUTION_STATUS_TOOL ? undefined : 'optional');
  });

  it('a task-augmented call answers at once with a task whose id is the execution id; polled and fetched on the other replica', async () => {
    const onA = await connect(replicaA);
    const onB = await connect(replicaB);
    const { task } = await createTask(onA, 'task-1');
    expect(task.taskId).toMatch(/^exe_[0-9A-HJKMNP-TV-Z]{26}$/);
    const { answer } = await h.query.status(task.taskId, 'agent:a');
    expect(answer.state).toBe('accepted');
    expect(task).toMatchObject({ status: 'working', statusMessage: answer.next_step, ttl: null, pollInterval: TASK_POLL_INTERVAL_MS });
    expect(Date.parse(task.createdAt)).not.toBeNaN();

    expect(await onB.experimental.tasks.getTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: 'working' });

    await h.complete(task.taskId);
    const done = await onB.experimental.tasks.getTask(task.taskId);
    expect(done).toMatchObject({ taskId: task.taskId, status: 'completed' });
    expect(done.statusMessage).toMatch(/^Completed: the target answered 201/);
    expect(Date.parse(done.lastUpdatedAt)).toBeGreaterThanOrEqual(Date.parse(task.createdAt));

    const result = await onB.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).toBe(false);
    expect(result._meta?.[RELATED_TASK_META_KEY]).toEqual({ taskId: task.taskId });
    // The CallToolResult the plain call that created the execution would have got, with the related-task marker;
    // it says `completed`: this very response is the result's delivery.
    expect(answerOf(result)).toMatchObject({
      execution_id: task.taskId,
      state: 'completed',
      target_status: 201,
      attached: false,
      replay: false,
      result: { body: { id: 'dep_1', state: 'live' } },
    });
    expect((result.content as { text: string }[])[0]?.text).toMatch(/^Completed: the target answered 201\. Do not call again/);
    // Written means delivered: the execution is completed once the tasks/result response has gone out.
    for (let i = 0; i < 100 && (await h.query.status(task.taskId, 'agent:a')).answer.state !== 'completed'; i += 1)
      await new Promise((r) => setTimeout(r, 50));
    expect((await h.query.status(task.taskId, 'agent:a')).answer.state).toBe('completed');
  });

  it('tasks/result blocks while the execution is being worked on and answers once it completes (on another replica than the one that moved it)', async () => {
    const onA = await connect(replicaA);
    const onB = await connect(replicaB);
    const { task } = await createTask(onA, 'task-2');
    const started = Date.now();
    setTimeout(() => void h.complete(task.taskId), 400);
    const result = await onB.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(answerOf(result)).toMatchObject({ execution_id: task.taskId, target_status: 201 });
    expect(taskStatusOf(answerOf(result).state)).toBe('completed');
  });

  it('tasks/result on a task still working at the end of the longest wait says so, and to poll again', async () => {
    const onB = await connect(replicaB);
    const { task } = await createTask(await connect(replicaA), 'task-stuck');
    const error = await onB.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).message).toMatch(/still working \(execution state accepted\); poll tasks\/get/);
  }, 20_000);

  it('a retry of the same call as a task is the same task (it attaches to the execution)', async () => {
    const client = await connect(replicaA);
    const first = await createTask(client, 'task-retry');
    const again = await createTask(await connect(replicaB), 'task-retry');
    expect(again.task.taskId).toBe(first.task.taskId);
  });

  it('tasks/cancel is refused and leaves the execution alone; another actor does not see the task at all', async () => {
    const onA = await connect(replicaA);
    const { task } = await createTask(onA, 'task-cancel');
    await expect(onA.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(
      /does not cancel executions.*carries on; a dispatched call cannot be unsent/,
    );
    expect((await h.query.status(task.taskId, 'agent:a')).answer.state).toBe('accepted');

    const other = await connect(replicaB, 'key-b');
    await expect(other.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/Task not found/);
    await expect(other.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toThrow(/Task not found/);
    await expect(onA.experimental.tasks.getTask('exe_nope')).rejects.toThrow(/Task not found/);
  });

  it('a call without a task request is answered as before: a CallToolResult with the execution, no task', async () => {
    const client = await connect(replicaA);
    const result = await client.callTool(deploy('plain'));
    expect(result).not.toHaveProperty('task');
    expect(result._meta).toBeUndefined();
    expect(answerOf(result)).toMatchObject({ tool: 'create_deployment', state: 'accepted', attached: false });
    expect((result.content as { text: string }[])[0]?.text).toMatch(/^Still in progress; do not call again/);
  });

  it('the status tool does not run as a task', async () => {
    const client = await connect(replicaA);
    await expect(
      client.request(
        { method: 'tools/call', params: { name: EXECUTION_STATUS_TOOL, arguments: { execution_id: 'exe_x' }, task: {} } },
        CreateTaskResultSchema,
      ),
    ).rejects.toThrow(/does not run as a task/);
  });

  it('maps every execution state to a task status', () => {
    const mapped = Object.fromEntries(ExecutionStatus.options.map((s) => [s, taskStatusOf(s)]));
    expect(mapped).toEqual({
      accepted: 'working',
      authorized: 'working',
      dispatched: 'working',
      dispatched_unknown: 'working',
      awaiting_approval: 'input_required',
      needs_review: 'input_required',
      completed: 'completed',
      completed_result_not_delivered: 'completed',
      failed: 'failed',
      denied: 'failed',
      expired: 'failed',
      reverted: 'failed',
    });
  });
});
