import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, CallToolResultSchema, type Task } from '@modelcontextprotocol/sdk/types.js';
import { KEYS, answerOf, until, type TwoIntakes, startTwoIntakes } from './pipeline-harness';

/**
 * The MCP tasks primitive with the official SDK client's experimental task API, against real
 * processes: an execution is a task (task id = execution id), created on intake #1 and polled and
 * fetched on intake #2, with the target reached once.
 */
describe('MCP tasks across two intake replicas (JetStream, PostgreSQL, real processes)', () => {
  let stack: TwoIntakes;
  let target: TwoIntakes['target'];
  let intake1: TwoIntakes['intake1'];
  let intake2: TwoIntakes['intake2'];
  const clients: Client[] = [];

  beforeAll(async () => {
    stack = await startTwoIntakes();
    ({ target, intake1, intake2 } = stack);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await stack?.stop();
  }, 60_000);

  async function connect(url: string): Promise<Client> {
    const client = new Client({ name: 'tasks-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${KEYS.a}` } } }),
    );
    clients.push(client);
    return client;
  }

  const deployments = (project: string): number =>
    target.effects({ route: 'deployments' }).filter((e) => e.params['project'] === project).length;
  const deploy = (project: string) => ({ name: 'create_deployment', arguments: { project, environment: 'staging', version: '3.0.0' } });

  it('a task-augmented call gets a task whose id is the execution id; intake #2 polls it to completed and hands over the result', async () => {
    const onIntake1 = await connect(intake1.url);
    const onIntake2 = await connect(intake2.url);
    // Held long enough for intake #2 to see the task still working, on a loaded machine too.
    target.setBehavior({ route: 'deployments', delay_ms: 5000, times: 1 });

    // The SDK's own task flow on intake #1, stopped after the task is created: the rest happens on intake #2.
    let created: Task | null = null;
    for await (const message of onIntake1.experimental.tasks.callToolStream(deploy('tasks'), CallToolResultSchema, {
      task: { ttl: 60_000 },
    })) {
      if (message.type === 'taskCreated') {
        created = message.task;
        break;
      }
    }
    if (!created) throw new Error('no task created');
    const taskId = created.taskId;
    expect(taskId).toMatch(/^exe_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(created.status).toBe('working');
    const execution = await fetch(`${intake2.url}/v1/executions/${taskId}`, { headers: { authorization: `Bearer ${KEYS.a}` } });
    expect(execution.status).toBe(200);
    expect(((await execution.json()) as { execution_id: string }).execution_id).toBe(taskId);

    const seen = new Set<string>();
    const done = await until(
      () => onIntake2.experimental.tasks.getTask(taskId),
      (task) => {
        seen.add(task.status);
        return task.status !== 'working';
      },
    );
    expect(done).toMatchObject({ taskId, status: 'completed' });
    expect(seen.has('working')).toBe(true);

    const result = (await onIntake2.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult;
    expect(answerOf(result)).toMatchObject({
      execution_id: taskId,
      state: 'completed',
      target_status: 201,
      replay: false,
    });
    expect(deployments('tasks')).toBe(1);

    // Delivered once written: the execution is completed, as after a plain call.
    const completed = await until(
      () => onIntake1.experimental.tasks.getTask(taskId),
      (task) => /^Completed/.test(task.statusMessage ?? '') && task.status === 'completed',
    );
    expect(completed.status).toBe('completed');
    const state = await until(
      async () =>
        (
          (await (await fetch(`${intake1.url}/v1/executions/${taskId}`, { headers: { authorization: `Bearer ${KEYS.a}` } })).json()) as {
            state: string;
          }
        ).state,
      (s) => s === 'completed',
    );
    expect(state).toBe('completed');
  });

  it('the whole SDK task stream on one replica ends with the result of the one execution', async () => {
    const client = await connect(intake2.url);
    const messages: string[] = [];
    let result: CallToolResult | null = null;
    for await (const message of client.experimental.tasks.callToolStream(deploy('tasks-stream'), CallToolResultSchema, { task: {} })) {
      messages.push(message.type);
      if (message.type === 'result') result = message.result as CallToolResult;
      if (message.type === 'error') throw message.error;
    }
    expect(messages[0]).toBe('taskCreated');
    expect(messages[messages.length - 1]).toBe('result');
    expect(answerOf(result)).toMatchObject({ state: 'completed', target_status: 201 });
    expect(deployments('tasks-stream')).toBe(1);
  });

  it('a call without a task request is unchanged: answered with the outcome, no task', async () => {
    const client = await connect(intake1.url);
    const result = await client.callTool(deploy('tasks-plain'));
    expect(result).not.toHaveProperty('task');
    expect(answerOf(result)).toMatchObject({ state: 'completed', target_status: 201, attached: false, replay: false });
    expect(deployments('tasks-plain')).toBe(1);
  });
});
