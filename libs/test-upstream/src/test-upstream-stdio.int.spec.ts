import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { type Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { setBehavior } from './state/behaviors';
import { readEffects } from './state/effect-ledger';
import { stdioUpstreamCommand } from './stdio-upstream';
import { EXECUTION_ID_META_KEY } from './upstream-server';
import { MODERN, type Negotiation, rawRequester, stdioClient, structured, tempStateDir, until } from '../test/clients';

const BOUND = { timeout: 15_000 };

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('test upstream over stdio (a child process), driven by the real v2 client', () => {
  let state: ReturnType<typeof tempStateDir>;
  const closers: (() => Promise<unknown>)[] = [];

  beforeEach(() => {
    state = tempStateDir();
  });

  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close().catch(() => undefined)));
    state.remove();
  });

  const start = async (negotiation: Negotiation = 'modern'): Promise<{ client: Client; pid: number }> => {
    const { client, transport } = await stdioClient(state.dir, { negotiation, taskDelayMs: 200 });
    closers.push(() => client.close());
    return { client, pid: transport.pid as number };
  };
  const record = (client: Client, key: string) =>
    client.callTool({ name: 'record_effect', arguments: { key }, _meta: { [EXECUTION_ID_META_KEY]: `exe_${key}` } }, BOUND);

  it.each([
    ['modern', '2026-07-28'],
    ['legacy', '2025-11-25'],
  ] as const)('serves its tools to a %s client (%s); the test reads the ledger from the state directory', async (negotiation, revision) => {
    const { client, pid } = await start(negotiation);
    expect(client.getNegotiatedProtocolVersion()).toBe(revision);

    const answer = await record(client, 'one');
    const status = await client.callTool({ name: 'read_status', arguments: { key: 'one' } }, BOUND);

    expect(readEffects(state.dir)).toEqual([
      expect.objectContaining({ effect_id: structured(answer)['effect_id'], key: 'one', executionId: 'exe_one', pid }),
    ]);
    expect(structured(status)).toEqual({ key: 'one', count: 1 });
  });

  it('behaviours written by the test reach the running process: answer_after_ms, error_before_apply, tool_error', async () => {
    const { client } = await start();
    setBehavior(state.dir, { kind: 'answer_after_ms', ms: 500 });
    let answered = false;
    const late = record(client, 'late').then(() => (answered = true));
    await until(
      () => readEffects(state.dir, { key: 'late' }).length,
      (n) => n === 1,
    );
    expect(answered).toBe(false);
    await late;

    setBehavior(state.dir, { kind: 'error_before_apply' });
    const failure = await record(client, 'err').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProtocolError);
    expect(failure).toMatchObject({ code: -32602 });

    setBehavior(state.dir, { kind: 'tool_error' });
    expect(await record(client, 'terr')).toMatchObject({ isError: true });
    expect(readEffects(state.dir).map((effect) => effect.key)).toEqual(['late']);
  });

  it('slow_effect: applied at once, answered after ms', async () => {
    const { client } = await start();
    let answered = false;
    const call = client.callTool({ name: 'slow_effect', arguments: { key: 'slow', ms: 600 } }, BOUND).then(() => (answered = true));

    await until(
      () => readEffects(state.dir, { key: 'slow' }).length,
      (n) => n === 1,
    );
    expect(answered).toBe(false);
    await call;
  });

  it('cut_after_apply: the process exits before answering; the effect is in the ledger', async () => {
    const { client, pid } = await start();
    setBehavior(state.dir, { kind: 'cut_after_apply' });

    await expect(record(client, 'cut')).rejects.toThrow();
    expect(readEffects(state.dir, { key: 'cut' })).toHaveLength(1);
    await until(
      () => isAlive(pid),
      (alive) => !alive,
    );
  });

  it('die_mid_call: the process exits before applying anything', async () => {
    const { client, pid } = await start();
    setBehavior(state.dir, { kind: 'die_mid_call' });

    await expect(record(client, 'die')).rejects.toThrow();
    expect(readEffects(state.dir)).toHaveLength(0);
    await until(
      () => isAlive(pid),
      (alive) => !alive,
    );
  });

  it('maybe_task: a task for a client declaring the extension; another process of the upstream reports it completed', async () => {
    const first = new StdioClientTransport({ ...stdioUpstreamCommand(state.dir, { taskDelayMs: 200 }), stderr: 'pipe' });
    closers.push(() => first.close());
    const created = await rawRequester(first, { tasks: true })('tools/call', { name: 'maybe_task', arguments: { key: 'task' } });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    await first.close();

    const second = new StdioClientTransport({ ...stdioUpstreamCommand(state.dir), stderr: 'pipe' });
    closers.push(() => second.close());
    const poll = rawRequester(second, { tasks: true });
    const done = await until(
      () => poll('tasks/get', { taskId: created['taskId'] }),
      (task) => task['status'] === 'completed',
    );
    expect(structured(done['result'])).toMatchObject({ key: 'task', effect_id: readEffects(state.dir)[0]?.effect_id });
  });

  it('exits 137 on die_mid_call and 1 on cut_after_apply (the codes a supervisor sees)', async () => {
    const exitCodeOf = async (kind: 'die_mid_call' | 'cut_after_apply'): Promise<number | null> => {
      setBehavior(state.dir, { kind });
      const { command, args, env } = stdioUpstreamCommand(state.dir);
      const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
      const meta = {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      };
      const call = {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'record_effect', arguments: { key: kind }, _meta: meta },
      };
      child.stdin.write(`${JSON.stringify(call)}\n`);
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    };

    expect(await exitCodeOf('die_mid_call')).toBe(137);
    expect(await exitCodeOf('cut_after_apply')).toBe(1);
    expect(readEffects(state.dir).map((effect) => effect.key)).toEqual(['cut_after_apply']);
  });

  it('refuses to start without a state directory, saying which variable', async () => {
    const { command, args, env } = stdioUpstreamCommand(state.dir);
    const child = spawn(command, args, { env: { ...process.env, ...env, TEST_UPSTREAM_STATE_DIR: '' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));

    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(stderr).toContain('TEST_UPSTREAM_STATE_DIR must name the state directory');
  });
});
