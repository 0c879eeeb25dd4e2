import { type Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type HttpUpstream, startHttpUpstream } from './http-upstream';
import { EXECUTION_ID_META_KEY, IDEMPOTENCY_META_KEY } from './upstream-server';
import { AnyResult, type Negotiation, httpClient, rawRequester, structured, tempStateDir, until } from '../test/clients';

const BOUND = { timeout: 10_000 };

describe('test upstream over Streamable HTTP, driven by the real v2 client', () => {
  let state: ReturnType<typeof tempStateDir>;
  let upstream: HttpUpstream;
  const clients: Client[] = [];

  beforeEach(async () => {
    state = tempStateDir();
    upstream = await startHttpUpstream({ stateDir: state.dir, taskDelayMs: 200 });
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
    await upstream.stop();
    state.remove();
  });

  const connect = async (negotiation: Negotiation = 'modern', tasks = false): Promise<Client> => {
    const client = await httpClient(upstream.url, { negotiation, tasks });
    clients.push(client);
    return client;
  };
  const record = (client: Client, key: string, meta: Record<string, unknown> = {}) =>
    client.callTool({ name: 'record_effect', arguments: { key }, _meta: meta }, BOUND);

  it.each([
    ['modern', '2026-07-28'],
    ['legacy', '2025-11-25'],
  ] as const)('serves its four tools to a %s client (%s) and records each effect with the execution id', async (negotiation, revision) => {
    const client = await connect(negotiation);
    expect(client.getNegotiatedProtocolVersion()).toBe(revision);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'record_effect',
      'read_status',
      'slow_effect',
      'maybe_task',
    ]);

    const answer = await client.callTool(
      { name: 'record_effect', arguments: { key: 'k1', note: 'first' }, _meta: { [EXECUTION_ID_META_KEY]: 'exe_01' } },
      BOUND,
    );
    const status = await client.callTool({ name: 'read_status', arguments: { key: 'k1' } }, BOUND);

    const [effect] = upstream.effects();
    expect(structured(answer)).toEqual({ effect_id: effect?.effect_id, key: 'k1', replayed: false });
    expect(effect).toMatchObject({ tool: 'record_effect', key: 'k1', note: 'first', executionId: 'exe_01' });
    expect(effect?.meta).toEqual({ [EXECUTION_ID_META_KEY]: 'exe_01' });
    expect(structured(status)).toEqual({ key: 'k1', count: 1 });
    expect(upstream.effects({ executionId: 'exe_01' })).toHaveLength(1);
  });

  it('slow_effect applies at once and answers only after ms', async () => {
    const client = await connect();
    let answered = false;
    const call = client.callTool({ name: 'slow_effect', arguments: { key: 'slow', ms: 700 } }, BOUND).then((result) => {
      answered = true;
      return result;
    });

    await until(
      () => upstream.effects({ key: 'slow' }).length,
      (n) => n === 1,
    );
    expect(answered).toBe(false);
    expect(structured(await call)).toMatchObject({ key: 'slow' });
  });

  it('a repeated idempotency key in _meta replays the first effect and applies nothing', async () => {
    const client = await connect();
    const first = await record(client, 'idem', { [IDEMPOTENCY_META_KEY]: 'once' });
    const second = await record(client, 'idem', { [IDEMPOTENCY_META_KEY]: 'once' });

    expect(structured(second)).toEqual({ ...structured(first), replayed: true });
    expect(upstream.effects({ key: 'idem' })).toHaveLength(1);
  });

  describe('maybe_task', () => {
    it('answers a client that declared the Tasks extension with a task; tasks/get reports completed with the result', async () => {
      const raw = rawRequester(new StreamableHTTPClientTransport(new URL(upstream.url)), { tasks: true });
      const created = await raw('tools/call', { name: 'maybe_task', arguments: { key: 'task' } });
      expect(created).toMatchObject({ resultType: 'task', status: 'working', taskId: expect.stringMatching(/^tsk_/) });
      expect(upstream.effects({ key: 'task' })).toHaveLength(1);

      const poller = await connect('modern', true);
      const done = await until(
        () => poller.request({ method: 'tasks/get', params: { taskId: created['taskId'] } }, AnyResult),
        (task) => task['status'] === 'completed',
      );
      expect(structured(done['result'])).toEqual({ effect_id: upstream.effects()[0]?.effect_id, key: 'task', replayed: false });
    });

    it('answers a client without the extension with the plain result', async () => {
      const client = await connect('modern', false);
      const answer = await client.callTool({ name: 'maybe_task', arguments: { key: 'plain' } }, BOUND);
      expect(structured(answer)).toMatchObject({ key: 'plain', replayed: false });
    });

    it('a task outlives a restart of the upstream; an unknown task id is -32602', async () => {
      const raw = rawRequester(new StreamableHTTPClientTransport(new URL(upstream.url)), { tasks: true });
      const created = await raw('tools/call', { name: 'maybe_task', arguments: { key: 'restart' } });
      await upstream.restart();

      const poller = await connect('modern', true);
      await until(
        () => poller.request({ method: 'tasks/get', params: { taskId: created['taskId'] } }, AnyResult),
        (task) => task['status'] === 'completed',
      );
      await expect(poller.request({ method: 'tasks/get', params: { taskId: 'tsk_unknown' } }, AnyResult)).rejects.toMatchObject({
        code: -32602,
      });
    });
  });

  describe('misbehaviours (each once unless times says more)', () => {
    it.each(['modern', 'legacy'] as const)('cut_after_apply (%s): the effect is applied, the socket destroyed, no answer', async (era) => {
      const client = await connect(era);
      upstream.setBehavior({ kind: 'cut_after_apply' });

      await expect(record(client, 'cut')).rejects.toThrow();
      expect(upstream.effects({ key: 'cut' })).toHaveLength(1);
      // Once: the next call is answered.
      expect(structured(await record(client, 'cut'))).toMatchObject({ key: 'cut' });
      expect(upstream.effects({ key: 'cut' })).toHaveLength(2);
    });

    it('die_mid_call: the connection dies before anything is applied', async () => {
      const client = await connect();
      upstream.setBehavior({ kind: 'die_mid_call' });

      await expect(record(client, 'die')).rejects.toThrow();
      expect(upstream.effects({ key: 'die' })).toHaveLength(0);
    });

    it('answer_after_ms: applied at once, answered late', async () => {
      const client = await connect();
      upstream.setBehavior({ kind: 'answer_after_ms', ms: 600 });
      let answered = false;
      const call = record(client, 'late').then(() => (answered = true));

      await until(
        () => upstream.effects({ key: 'late' }).length,
        (n) => n === 1,
      );
      expect(answered).toBe(false);
      await call;
    });

    it('error_before_apply: a JSON-RPC -32602, nothing applied', async () => {
      const client = await connect();
      upstream.setBehavior({ kind: 'error_before_apply' });

      const failure = await record(client, 'err').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ProtocolError);
      expect(failure).toMatchObject({ code: -32602 });
      expect(upstream.effects()).toHaveLength(0);
    });

    it('tool_error: a result with isError, nothing applied', async () => {
      const client = await connect();
      upstream.setBehavior({ kind: 'tool_error' });

      expect(await record(client, 'terr')).toMatchObject({ isError: true });
      expect(upstream.effects()).toHaveLength(0);
    });

    it('times, tool and key narrow a behaviour; read_status misbehaves only when named', async () => {
      const client = await connect();
      upstream.setBehavior({ kind: 'tool_error', tool: 'record_effect', key: 'only-this', times: 2 });

      expect(await record(client, 'other')).not.toMatchObject({ isError: true });
      expect(await client.callTool({ name: 'read_status', arguments: { key: 'only-this' } }, BOUND)).not.toMatchObject({ isError: true });
      expect(await record(client, 'only-this')).toMatchObject({ isError: true });
      expect(await record(client, 'only-this')).toMatchObject({ isError: true });
      expect(await record(client, 'only-this')).not.toMatchObject({ isError: true });

      upstream.setBehavior({ kind: 'tool_error', tool: 'read_status' });
      expect(await client.callTool({ name: 'read_status', arguments: { key: 'x' } }, BOUND)).toMatchObject({ isError: true });
    });

    it('clearBehaviors drops every behaviour in force', async () => {
      const client = await connect();
      upstream.setBehavior({ kind: 'tool_error', times: 5 });
      upstream.clearBehaviors();

      expect(await record(client, 'clear')).not.toMatchObject({ isError: true });
    });
  });

  it('the catalog control hides tools, adds arguments and pages tools/list', async () => {
    upstream.setCatalog({
      hiddenTools: ['slow_effect'],
      extraArguments: { record_effect: { priority: { type: 'integer' } } },
      pageSize: 1,
    });
    const client = await connect();

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['record_effect', 'read_status', 'maybe_task']);
    expect(tools[0]?.inputSchema.properties).toHaveProperty('priority', { type: 'integer' });
    const firstPage = await client.listTools({ cursor: '0' });
    expect(firstPage).toMatchObject({ tools: [{ name: 'record_effect' }], nextCursor: '1' });
  });

  it('restart() cuts open connections and serves again on the same URL, the ledger kept', async () => {
    const client = await connect();
    await record(client, 'before');
    const url = upstream.url;

    await upstream.restart();

    const again = await connect();
    await record(again, 'after');
    expect(upstream.url).toBe(url);
    expect(upstream.effects().map((effect) => effect.key)).toEqual(['before', 'after']);
  });
});
