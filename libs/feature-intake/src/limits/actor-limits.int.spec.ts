import { once } from 'node:events';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type ActorLimits, BUILT_IN_ACTOR_LIMITS } from '@onceport/config';
import { ExecutionWatcher } from '../await-outcome/execution-watcher';
import type { IntakeDependencies } from '../intake-dependencies';
import { RestAgentProcesses } from '../rest/agent-processes';
import { type IntakeHarness, startIntakeHarness } from '../testing/intake-harness';
import { LIMIT_EXCEEDED } from './limit-answers';
import { TooManyInFlightError } from './limit-errors';

/** One token every 4 s: the burst and the call after it land well inside one token's time, even on a loaded machine. */
const SLOW: ActorLimits = { ratePerSecond: 0.25, burst: 3, maxInFlight: 100 };
const CAPPED: ActorLimits = { ratePerSecond: 1_000, burst: 1_000, maxInFlight: 3 };
const MAX_BATCH_CALLS = 3;

const ACTORS: Record<string, { id: string; limits: ActorLimits }> = {
  'key-rate-rest': { id: 'agent:rate-rest', limits: SLOW },
  'key-rate-mcp': { id: 'agent:rate-mcp', limits: SLOW },
  'key-cap-rest': { id: 'agent:cap-rest', limits: CAPPED },
  'key-cap-mcp': { id: 'agent:cap-mcp', limits: CAPPED },
  'key-batch': { id: 'agent:batch', limits: BUILT_IN_ACTOR_LIMITS },
};
const limitsOf = (actor: string): ActorLimits => Object.values(ACTORS).find((a) => a.id === actor)?.limits ?? BUILT_IN_ACTOR_LIMITS;

interface Reply {
  readonly status: number;
  readonly headers: Headers;
  /** REST: the body; MCP: every JSON-RPC message of the answer (JSON or SSE). */
  readonly messages: Array<Record<string, unknown>>;
}

/**
 * Per-actor limits against the real intake: MCP and REST controllers behind one HTTP server, one
 * CallToolService (as the module wires them) over real PostgreSQL. Nothing dispatches, so the
 * executions a test creates stay in flight until it completes them with `h.complete`.
 */
describe('per-actor limits and the batch cap (real intake over HTTP and PostgreSQL)', () => {
  let h: IntakeHarness;
  let server: Server;
  let watcher: ExecutionWatcher;
  let base: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    h = await startIntakeHarness();
    const deps: IntakeDependencies = {
      ...h.deps,
      actors: { authenticate: (token) => (ACTORS[token] ? { id: ACTORS[token].id } : null) },
      limits: { limitsOf },
      settings: { ...h.deps.settings, maxBatchCalls: MAX_BATCH_CALLS },
    };
    watcher = new ExecutionWatcher(h.ports.pool, () => undefined);
    await watcher.start();
    const callTool = h.callToolService(deps, watcher);
    const mcp = h.mcpController(deps, watcher, callTool);
    const rest = h.executionsController(deps, watcher, { processes: new RestAgentProcesses(h.deps.em), callTool });
    server = createServer((req, res) => {
      if (req.url === '/mcp') return void mcp.handle(req, res);
      if (req.method === 'POST' && req.url === '/v1/executions') return void rest.create(req, res);
      res.writeHead(404).end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 30_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await watcher?.stop();
    await h?.close();
  });

  const args = (project: string) => ({ project, environment: 'staging', version: '1.0.0', notes: 'n' });
  const eventCount = async (): Promise<number> => (await h.allEvents()).length;
  const acceptedProjects = async (): Promise<string[]> =>
    (await h.allEvents())
      .filter((e) => e.type === 'ExecutionAccepted')
      .map((e) => String((e.data['arguments'] as Record<string, unknown>)['project']));
  const inFlightRows = async (actor: string): Promise<number> =>
    (await h.ports.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM onceport.intake_in_flight WHERE actor = $1', [actor])).rows[0]
      ?.n ?? -1;

  async function restCall(key: string, project: string): Promise<Reply> {
    const response = await fetch(`${base}/v1/executions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ tool: 'create_deployment', arguments: args(project) }),
    });
    return { status: response.status, headers: response.headers, messages: [(await response.json()) as Record<string, unknown>] };
  }

  /** An MCP session of this key's actor, opened by the SDK client; raw POSTs then use its id. */
  async function mcpSession(key: string): Promise<string> {
    const client = new Client({ name: 'limits-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return transport.sessionId ?? '';
  }

  let rpcId = 0;
  const toolsCall = (project: string): Record<string, unknown> => {
    rpcId += 1;
    return { jsonrpc: '2.0', id: rpcId, method: 'tools/call', params: { name: 'create_deployment', arguments: args(project) } };
  };

  async function mcpPost(key: string, session: string, body: unknown): Promise<Reply> {
    const response = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const json = (response.headers.get('content-type') ?? '').includes('text/event-stream')
      ? text
          .split('\n')
          .filter((line) => line.startsWith('data:') && line.slice(5).trim() !== '')
          .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>)
      : ([JSON.parse(text)].flat() as Array<Record<string, unknown>>);
    return { status: response.status, headers: response.headers, messages: json };
  }
  const rpcError = (message: Record<string, unknown> | undefined) =>
    message?.['error'] as { code: number; message: string; data?: Record<string, unknown> } | undefined;
  const rpcAnswer = (message: Record<string, unknown> | undefined) =>
    (message?.['result'] as { structuredContent?: Record<string, unknown> } | undefined)?.structuredContent;

  describe('token-bucket rate', () => {
    it('REST: the burst is accepted, the next call is 429 with Retry-After and creates nothing, and after Retry-After a call is accepted again', async () => {
      const burst = await Promise.all([1, 2, 3].map((i) => restCall('key-rate-rest', `rate-rest-${i}`)));
      expect(burst.map((r) => r.status)).toEqual([202, 202, 202]);
      const before = await eventCount();

      const refused = await restCall('key-rate-rest', 'rate-rest-over');
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(4);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
      expect(refused.messages[0]).toMatchObject({
        type: 'https://onceport.dev/problems/rate-limited',
        status: 429,
        code: 'rate_limited',
        retry_after_seconds: retryAfter,
        limits: { rate_per_second: 0.25, burst: 3, max_in_flight: 100 },
      });
      expect(String(refused.messages[0]?.['detail'])).toContain('agent:rate-rest may send 0.25 tool calls a second (bursts of 3)');
      // The refusal was decided before anything was read or written: nothing follows the answer.
      expect(await eventCount()).toBe(before);
      expect(await acceptedProjects()).not.toContain('rate-rest-over');

      await sleep(retryAfter * 1000);
      const again = await restCall('key-rate-rest', 'rate-rest-over');
      expect(again.status).toBe(202);
      expect(await acceptedProjects()).toContain('rate-rest-over');
    }, 30_000);

    it('MCP: the burst is accepted, the next tools/call is JSON-RPC error -32029 with the retry time in data, and after it a call is accepted again', async () => {
      const session = await mcpSession('key-rate-mcp');
      const burst = await Promise.all([1, 2, 3].map((i) => mcpPost('key-rate-mcp', session, toolsCall(`rate-mcp-${i}`))));
      expect(burst.map((r) => rpcAnswer(r.messages[0])?.['state'])).toEqual(['accepted', 'accepted', 'accepted']);
      const before = await eventCount();

      const refused = await mcpPost('key-rate-mcp', session, toolsCall('rate-mcp-over'));
      const error = rpcError(refused.messages[0]);
      expect(error?.code).toBe(LIMIT_EXCEEDED);
      expect(error?.message).toContain('agent:rate-mcp may send 0.25 tool calls a second (bursts of 3)');
      expect(error?.data).toMatchObject({ code: 'rate_limited', limits: { rate_per_second: 0.25, burst: 3 } });
      const retryAfterMs = Number(error?.data?.['retry_after_ms']);
      expect(retryAfterMs).toBeGreaterThan(0);
      expect(retryAfterMs).toBeLessThanOrEqual(4_000);
      expect(error?.data?.['retry_after_seconds']).toBe(Math.ceil(retryAfterMs / 1000));
      expect(await eventCount()).toBe(before);

      await sleep(retryAfterMs);
      const again = await mcpPost('key-rate-mcp', session, toolsCall('rate-mcp-over'));
      expect(rpcAnswer(again.messages[0])?.['state']).toBe('accepted');
      expect(await acceptedProjects()).toContain('rate-mcp-over');
    }, 30_000);
  });

  describe('executions in flight', () => {
    it('REST: at the cap a new execution is 429 and creates nothing, a retry of a held call still attaches, and once one finishes a new one is accepted', async () => {
      const held = await Promise.all([1, 2, 3].map((i) => restCall('key-cap-rest', `cap-rest-${i}`)));
      expect(held.map((r) => r.status)).toEqual([202, 202, 202]);
      expect(await inFlightRows('agent:cap-rest')).toBe(3);
      const before = await eventCount();

      const refused = await restCall('key-cap-rest', 'cap-rest-new');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.messages[0]).toMatchObject({
        type: 'https://onceport.dev/problems/too-many-in-flight',
        code: 'too_many_in_flight',
        in_flight: 3,
        limits: { max_in_flight: 3 },
      });
      // No claim, no event, no place taken: the transaction that would have written them rolled back.
      expect(await eventCount()).toBe(before);
      expect(await inFlightRows('agent:cap-rest')).toBe(3);

      const retry = await restCall('key-cap-rest', 'cap-rest-1');
      expect(retry.status).toBe(202);
      expect(retry.messages[0]).toMatchObject({ execution_id: held[0]?.messages[0]?.['execution_id'], attached: true });
      expect(await inFlightRows('agent:cap-rest')).toBe(3);

      await h.complete(String(held[0]?.messages[0]?.['execution_id']));
      const accepted = await restCall('key-cap-rest', 'cap-rest-new');
      expect(accepted.status).toBe(202);
      expect(accepted.messages[0]).toMatchObject({ state: 'accepted', attached: false });
      expect(await acceptedProjects()).toContain('cap-rest-new');
      expect(await inFlightRows('agent:cap-rest')).toBe(3);
    }, 30_000);

    it('MCP: at the cap a new execution is error -32029 and creates nothing, a retry still attaches, and once one finishes a new one is accepted', async () => {
      const session = await mcpSession('key-cap-mcp');
      const held = await Promise.all([1, 2, 3].map((i) => mcpPost('key-cap-mcp', session, toolsCall(`cap-mcp-${i}`))));
      const heldIds = held.map((r) => String(rpcAnswer(r.messages[0])?.['execution_id']));
      const before = await eventCount();

      const refused = rpcError((await mcpPost('key-cap-mcp', session, toolsCall('cap-mcp-new'))).messages[0]);
      expect(refused?.code).toBe(LIMIT_EXCEEDED);
      expect(refused?.message).toContain('agent:cap-mcp has 3 executions accepted and not yet settled, at most 3 are allowed');
      expect(refused?.data).toMatchObject({ code: 'too_many_in_flight', retry_after_seconds: 1, retry_after_ms: 1_000, in_flight: 3 });
      expect(await eventCount()).toBe(before);

      // Another session of the same actor: the same intent, so the same execution.
      const other = await mcpSession('key-cap-mcp');
      const retry = rpcAnswer((await mcpPost('key-cap-mcp', other, toolsCall('cap-mcp-2'))).messages[0]);
      expect(retry).toMatchObject({ execution_id: heldIds[1], attached: true });

      await h.complete(heldIds[1] ?? '');
      const accepted = rpcAnswer((await mcpPost('key-cap-mcp', session, toolsCall('cap-mcp-new'))).messages[0]);
      expect(accepted).toMatchObject({ state: 'accepted', attached: false });
      expect(await inFlightRows('agent:cap-mcp')).toBe(3);
    }, 30_000);

    it('two intake replicas racing for one actor never take more places than its cap', async () => {
      const capped = { ...h.deps, limits: { limitsOf: (): ActorLimits => ({ ...BUILT_IN_ACTOR_LIMITS, maxInFlight: 4 }) } };
      const replicas = [h.callToolService(capped, h.watcher), h.callToolService(capped, h.watcher)];
      const results = await Promise.allSettled(
        Array.from({ length: 12 }, (_, i) => replicas[i % 2]?.call(h.request({ actor: 'agent:raced', arguments: args(`raced-${i}`) }))),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(4);
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(refused).toHaveLength(8);
      for (const r of refused) expect(r.reason).toBeInstanceOf(TooManyInFlightError);
      expect((await acceptedProjects()).filter((p) => p.startsWith('raced-'))).toHaveLength(4);
      const claims = (await h.allEvents()).filter((e) => e.type === 'IntentClaimed');
      const acceptedIds = new Set(
        (await h.allEvents()).filter((e) => e.type === 'ExecutionAccepted').map((e) => String(e.data['executionId'])),
      );
      // Every claim belongs to an accepted execution: no refused call left one behind.
      for (const claim of claims) expect(acceptedIds.has(String(claim.data['executionId']))).toBe(true);
      expect(await inFlightRows('agent:raced')).toBe(4);
    }, 30_000);
  });

  describe('executions in flight, below the cap', () => {
    it("one actor's calls do not take turns: an acceptance goes through while the actor's counting lock is held elsewhere", async () => {
      const roomy = { ...h.deps, limits: { limitsOf: (): ActorLimits => ({ ...BUILT_IN_ACTOR_LIMITS, maxInFlight: 10_000 }) } };
      const service = h.callToolService(roomy, h.watcher);
      const holder = await h.ports.pool.connect();
      try {
        // The lock the counted path takes (in-flight-executions.ts), held by another session for the whole call.
        await holder.query('SELECT pg_advisory_lock($1, hashtext($2))', [0x0f1f, 'agent:unqueued']);
        const outcomes = await Promise.all(
          Array.from({ length: 8 }, (_, i) => service.call(h.request({ actor: 'agent:unqueued', arguments: args(`unqueued-${i}`) }))),
        );
        expect(outcomes.map((o) => o.answer.state)).toEqual(Array.from({ length: 8 }, () => 'accepted'));
        const slots = await h.ports.pool.query<{ slot: number }>('SELECT slot FROM onceport.intake_in_flight WHERE actor = $1', [
          'agent:unqueued',
        ]);
        expect(slots.rows).toHaveLength(8);
        for (const { slot } of slots.rows) expect(slot).toBeLessThan(10_000);
      } finally {
        await holder.query('SELECT pg_advisory_unlock_all()');
        holder.release();
      }
    }, 30_000);
  });

  describe('JSON-RPC batch cap', () => {
    it(`a batch of ${MAX_BATCH_CALLS + 1} tools/calls is refused whole with -32600 naming the bound and creates nothing; a batch of ${MAX_BATCH_CALLS} passes`, async () => {
      const session = await mcpSession('key-batch');
      const before = await eventCount();
      const over = await mcpPost(
        'key-batch',
        session,
        [1, 2, 3, 4].map((i) => toolsCall(`batch-over-${i}`)),
      );
      expect(over.status).toBe(400);
      expect(rpcError(over.messages[0])).toMatchObject({
        code: -32600,
        message: `Invalid Request: a batch carries at most ${MAX_BATCH_CALLS} tools/call requests (ONCEPORT_MAX_BATCH_CALLS); this one has 4: send them in smaller batches or one by one`,
        data: { max_batch_calls: MAX_BATCH_CALLS },
      });
      expect(await eventCount()).toBe(before);

      const within = await mcpPost(
        'key-batch',
        session,
        [1, 2, 3].map((i) => toolsCall(`batch-ok-${i}`)),
      );
      expect(within.status).toBe(200);
      expect(within.messages.map((m) => rpcAnswer(m)?.['state'])).toEqual(['accepted', 'accepted', 'accepted']);
      const projects = await acceptedProjects();
      expect(projects.filter((p) => p.startsWith('batch-ok-')).sort()).toEqual(['batch-ok-1', 'batch-ok-2', 'batch-ok-3']);
      expect(projects.filter((p) => p.startsWith('batch-over-'))).toEqual([]);
    }, 30_000);
  });
});
