import { readTask, taskDialectOf, taskRequest, TASKS_EXTENSION } from './mcp-task-wire';

describe('reading an upstream task', () => {
  const task = { taskId: 'tsk_1', status: 'working', statusMessage: 'busy', pollIntervalMs: 250 };

  it('reads the 2026-07-28 extension answer, the 2025-11-25 { task } answer and a tasks/get answer alike', () => {
    expect(readTask({ resultType: 'task', ...task }, 'call')).toMatchObject({ kind: 'task', task: { taskId: 'tsk_1', status: 'working' } });
    expect(readTask({ task: { ...task, pollInterval: 250 }, content: [] }, 'call')).toMatchObject({
      kind: 'task',
      task: { pollIntervalMs: 250 },
    });
    expect(readTask({ ...task, status: 'completed', result: { content: [] } }, 'get')).toMatchObject({
      kind: 'task',
      task: { status: 'completed', result: { content: [] } },
    });
  });

  it('is no task for a plain result', () => {
    expect(readTask({ content: [{ type: 'text', text: 'hi' }] }, 'call')).toEqual({ kind: 'none' });
    expect(readTask(undefined, 'call')).toEqual({ kind: 'none' });
  });

  it('refuses an id it could not record or poll safely, and an unknown status', () => {
    for (const taskId of ['', 'a b', 'x'.repeat(129), 'line\nbreak', 42])
      expect(readTask({ resultType: 'task', ...task, taskId }, 'call')).toMatchObject({ kind: 'invalid' });
    expect(readTask({ resultType: 'task', ...task, status: 'sleeping' }, 'call')).toMatchObject({ kind: 'invalid' });
  });

  it('bounds what it keeps: the poll interval to [100 ms, 5 s], messages to 300 characters', () => {
    const read = (extra: Record<string, unknown>) => readTask({ resultType: 'task', ...task, ...extra }, 'call');
    expect(read({ pollIntervalMs: 1 })).toMatchObject({ task: { pollIntervalMs: 100 } });
    expect(read({ pollIntervalMs: 3_600_000 })).toMatchObject({ task: { pollIntervalMs: 5_000 } });
    const long = read({ statusMessage: 'm'.repeat(10_000), status: 'failed', error: { code: -1, message: 'e'.repeat(10_000) } });
    expect(long.kind === 'task' && [long.task.statusMessage?.length, long.task.error?.message.length]).toEqual([300, 300]);
  });
});

describe('asking for a task', () => {
  it('declares the extension per request on 2026-07-28, sends params.task on 2025-11-25', () => {
    expect(taskRequest('extension', 1000).meta).toEqual({
      'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
    });
    expect(taskRequest('legacy', 1000)).toEqual({ meta: {}, params: { task: { ttl: 1000 } } });
  });

  it('asks only an upstream that offers tasks for tools/call', () => {
    expect(taskDialectOf('modern', { extensions: { [TASKS_EXTENSION]: {} } })).toBe('extension');
    expect(taskDialectOf('modern', { tools: {} })).toBeNull();
    expect(taskDialectOf('legacy', { tasks: { requests: { tools: { call: {} } } } })).toBe('legacy');
    expect(taskDialectOf('legacy', { tasks: { list: {} } })).toBeNull();
    expect(taskDialectOf(undefined, undefined)).toBeNull();
  });
});
