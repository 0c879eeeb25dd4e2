import { randomUUID } from 'node:crypto';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { type Answer, KEYS, type TwoIntakes, startTwoIntakes, until } from './pipeline-harness';

const REVISION = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
const AnyResult = z.object({}).passthrough();

/**
 * Agents on both MCP eras with the official clients, against real processes (two intake replicas,
 * JetStream, PostgreSQL): the v2 client pinned to 2026-07-28 and in auto mode, the v1 client on
 * 2025-11-25. Under 2026-07-28 every lost answer becomes a re-issue with a new request id; each case
 * counts the effects the target saw.
 */
describe('MCP 2026-07-28 and 2025-11-25 side by side (official clients, two intake replicas)', () => {
  let stack: TwoIntakes;
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    stack = await startTwoIntakes();
  }, 180_000);

  afterAll(async () => {
    await Promise.all(closers.map((close) => close().catch(() => undefined)));
    await stack?.stop();
  }, 60_000);

  /** A replica's URL now (a restarted replica listens on a new port). */
  const intake = (replica: number): string => stack.gateway.process('intake', replica).url;
  const auth = (key = KEYS.a) => ({ requestInit: { headers: { Authorization: `Bearer ${key}` } } });

  async function modern(url: string, mode: 'pin' | 'auto' = 'pin', options: { tasks?: boolean } = {}): Promise<ModernClient> {
    const client = new ModernClient(
      { name: 'eras-e2e', version: '1.0.0' },
      {
        versionNegotiation: { mode: mode === 'pin' ? { pin: REVISION } : 'auto' },
        ...(options.tasks ? { capabilities: { extensions: { [TASKS]: {} } } } : {}),
      },
    );
    await client.connect(new ModernTransport(new URL(`${url}/mcp`), auth()));
    closers.push(() => client.close());
    return client;
  }

  async function legacy(url: string): Promise<LegacyClient> {
    const client = new LegacyClient({ name: 'eras-e2e-v1', version: '1.0.0' });
    await client.connect(new LegacyTransport(new URL(`${url}/mcp`), auth()));
    closers.push(() => client.close());
    return client;
  }

  const answerOf = (result: unknown): Answer => (result as { structuredContent: Answer }).structuredContent;
  const deployments = (project: string): number =>
    stack.target.effects({ route: 'deployments' }).filter((e) => e.params['project'] === project).length;
  const deploy = (project: string) => ({ name: 'create_deployment', arguments: { project, environment: 'staging', version: '4.0.0' } });
  const untilTargetSaw = (project: string) =>
    until(
      async () => deployments(project),
      (n) => n >= 1,
      20_000,
    );

  it('each client speaks its era on one endpoint: lists the tools and calls one (1 effect each)', async () => {
    const pinned = await modern(intake(0), 'pin');
    const auto = await modern(intake(1), 'auto');
    const v1 = await legacy(intake(0));
    expect(pinned.getNegotiatedProtocolVersion()).toBe(REVISION);
    expect(auto.getNegotiatedProtocolVersion()).toBe(REVISION);
    expect(auto.getDiscoverResult()?.capabilities).toMatchObject({ tools: {}, extensions: { [TASKS]: {} } });
    expect((v1.transport as LegacyTransport).protocolVersion).toBe('2025-11-25');

    for (const [name, client] of [
      ['pinned', pinned],
      ['auto', auto],
      ['v1', v1],
    ] as const) {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['create_deployment', 'onceport_execution_status']));
      const answer = answerOf(await client.callTool(deploy(`eras-${name}`)));
      expect(answer).toMatchObject({ state: 'completed', attached: false, replay: false, target_status: 201 });
      expect(deployments(`eras-${name}`)).toBe(1);
    }
  });

  it('2026-07-28: the stream closes mid-call (abort) and the client re-issues with a new request id: same execution, answered from its state, 1 effect', async () => {
    const client = await modern(intake(0));
    stack.target.setBehavior({ route: 'deployments', delay_ms: 1500, times: 1 });
    const aborted = new AbortController();
    const first = client.callTool(deploy('eras-abort'), { signal: aborted.signal });
    await untilTargetSaw('eras-abort');
    aborted.abort(); // the spec's cancellation: the dispatched execution must carry on regardless
    await expect(first).rejects.toThrow();

    const again = answerOf(await client.callTool(deploy('eras-abort')));
    expect(again).toMatchObject({ state: 'completed', attached: true, target_status: 201 });
    expect(deployments('eras-abort')).toBe(1);
  });

  it('2026-07-28: the intake replica holding the call is SIGKILLed; the re-issue on the other replica attaches, 1 effect', async () => {
    const onFirst = await modern(intake(0));
    const onSecond = await modern(intake(1));
    stack.target.setBehavior({ route: 'deployments', delay_ms: 1500, times: 1 });
    const lost = onFirst.callTool(deploy('eras-kill'));
    await untilTargetSaw('eras-kill');
    await stack.gateway.kill('intake', 0);
    await expect(lost).rejects.toThrow();

    const again = answerOf(await onSecond.callTool(deploy('eras-kill')));
    expect(again).toMatchObject({ state: 'completed', attached: true, target_status: 201 });
    expect(deployments('eras-kill')).toBe(1);
    // Back for the cases after this one (the harness's process handle is replaced in place).
    await stack.gateway.restart('intake', { replica: 0 });
  });

  it('2026-07-28: a re-drafted generated argument attaches to the same execution (1 email)', async () => {
    const client = await modern(intake(1));
    const email = (body: string) => ({
      name: 'send_email',
      arguments: { recipient: 'ana@example.com', campaign_id: `eras-${randomUUID().slice(0, 8)}`, subject: 'Hello', body },
    });
    const first = email('Dear Ana, first draft.');
    const original = answerOf(await client.callTool(first));
    const redraft = answerOf(await client.callTool({ ...first, arguments: { ...first.arguments, body: 'Hi Ana — second draft.' } }));
    expect(redraft).toMatchObject({ execution_id: original.execution_id, attached: true });
    const sent = stack.target
      .effects({ route: 'emails' })
      .filter((e) => (e.body as { campaign_id?: string }).campaign_id === first.arguments.campaign_id);
    expect(sent).toHaveLength(1);
  });

  /**
   * The v2 Client (2.4.0) does not decode a task result (UnsupportedResultType), so the task is
   * created through the SDK's own transport with the per-request envelope, and followed with the
   * client's `request` (tasks/get, tasks/cancel are plain requests).
   */
  async function callAsTask(url: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const transport = new ModernTransport(new URL(`${url}/mcp`), auth());
    closers.push(() => transport.close());
    const id = randomUUID();
    const answered = new Promise<Record<string, unknown>>((resolve, reject) => {
      transport.onmessage = (message) => {
        if ('id' in message && message.id === id) {
          if ('result' in message) resolve(message.result as Record<string, unknown>);
          else reject(new Error(JSON.stringify(message)));
        }
      };
      transport.onerror = reject;
    });
    await transport.start();
    const meta = {
      'io.modelcontextprotocol/protocolVersion': REVISION,
      'io.modelcontextprotocol/clientInfo': { name: 'eras-e2e-tasks', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
      'onceport/wait_ms': 0,
    };
    await transport.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { ...params, _meta: meta } });
    return answered;
  }

  it('2026-07-28 with the Tasks extension: a call whose outcome is not known at once is a task; the other replica polls it to completed', async () => {
    stack.target.setBehavior({ route: 'deployments', delay_ms: 1500, times: 1 });
    const created = await callAsTask(intake(0), deploy('eras-task'));
    expect(created).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: expect.any(Number) });
    expect(created['taskId']).toMatch(/^exe_[0-9A-HJKMNP-TV-Z]{26}$/);
    // The task's ttl is the tool's correlation window (24h for create_deployment).
    expect(created['ttlMs']).toBe(24 * 3600 * 1000);

    const poller = await modern(intake(1), 'pin', { tasks: true });
    const done = await until(
      () => poller.request({ method: 'tasks/get', params: { taskId: created['taskId'] } }, AnyResult),
      (task) => task['status'] !== 'working',
      30_000,
    );
    expect(done).toMatchObject({ taskId: created['taskId'], status: 'completed' });
    expect(answerOf(done['result'])).toMatchObject({ execution_id: created['taskId'], state: 'completed', target_status: 201 });
    expect(deployments('eras-task')).toBe(1);
  });

  it('2026-07-28 tasks/cancel before dispatch denies the execution (nothing sent); after dispatch it is refused with the reason', async () => {
    // A per-use approval keeps the charge from being dispatched until a human decides.
    const charge = { name: 'charge_payment', arguments: { customer_id: 'cus_eras', amount_cents: 1200, card_token: 'tok_eras_1234' } };
    const created = await callAsTask(intake(0), charge);
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const client = await modern(intake(1), 'pin', { tasks: true });
    // Still working, and the message says on what: a human approval, nothing sent.
    const waiting = await until(
      () => client.request({ method: 'tasks/get', params: { taskId: created['taskId'] } }, AnyResult),
      (task) => /approval/i.test(String(task['statusMessage'])),
      20_000,
    );
    expect(waiting).toMatchObject({ status: 'working' });
    await client.request({ method: 'tasks/cancel', params: { taskId: created['taskId'] } }, AnyResult);
    const cancelled = await client.request({ method: 'tasks/get', params: { taskId: created['taskId'] } }, AnyResult);
    expect(cancelled).toMatchObject({ status: 'cancelled' });
    expect(stack.target.effects({ route: 'payments' })).toHaveLength(0);

    const dispatched = answerOf(await client.callTool(deploy('eras-cancel-late')));
    await expect(client.request({ method: 'tasks/cancel', params: { taskId: dispatched.execution_id } }, AnyResult)).rejects.toThrow(
      /already ended|cannot be unsent/,
    );
    expect(deployments('eras-cancel-late')).toBe(1);
  });
});
