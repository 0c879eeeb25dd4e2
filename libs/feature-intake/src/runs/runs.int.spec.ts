import { once } from 'node:events';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { executionStream } from '@onceport/event-store';
import type { IntakeDependencies } from '../intake-dependencies';
import { type IntakeHarness, startIntakeHarness } from '../testing/intake-harness';
import { serveMcp } from '../testing/mcp-test-server';
import { RepeatRefusedError } from './run-errors';
import { RunsController } from './runs.controller';

const KEYS: Record<string, string> = { 'key-a': 'agent:a', 'key-b': 'agent:b' };
const ADMIN_KEY = 'adm-ops';

interface Reply {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/**
 * Runs through intake's real services over real PostgreSQL (the test plays authorization and the
 * dispatcher with `h.complete`): a run's calls share the trigger's intent scope, a replay is allowed
 * only when every effect is replay-safe, attempt 2's repeats are ledger hits whatever the generated
 * text says, the divergence report names what attempt 2 did not ask for, and a forced replay is
 * audited with what it may repeat.
 */
describe('runs and replays (DESIGN.md §7)', () => {
  let h: IntakeHarness;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    h = await startIntakeHarness();
    const deps: IntakeDependencies = {
      ...h.deps,
      actors: { authenticate: (token) => (KEYS[token] ? { id: KEYS[token] } : null) },
      admins: {
        authenticate: async (authorization) =>
          authorization === `Bearer ${ADMIN_KEY}` ? { ok: true, admin: { id: 'admin:ops' } } : { ok: false },
      },
    };
    const controller = new RunsController(deps, h.runs, h.ports.log);
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const [, v1, runs, id, sub] = url.pathname.split('/');
      if (v1 !== 'v1' || runs !== 'runs') return void res.writeHead(404).end();
      if (!id)
        return void (req.method === 'POST' ? controller.open(req, res) : controller.list(req, res, Object.fromEntries(url.searchParams)));
      if (sub === 'replays' && req.method === 'POST') return void controller.replay(id, req, res);
      if (sub === 'divergence') return void controller.divergence(id, req, res);
      if (sub === 'replay-check') return void controller.replayCheck(id, req, res);
      return void controller.one(id, req, res);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await h?.close();
  });

  async function http(method: string, path: string, key: string, body?: unknown): Promise<Reply> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  const email = (runId: string, recipient: string, draft: string, extra: Record<string, unknown> = {}) =>
    h.callTool.call(
      h.request({
        tool: 'send_email',
        arguments: { recipient, campaign_id: 'winter', subject: `Hello (${draft})`, body: `Dear customer, ${draft}` },
        run: { id: runId, trigger: null, attempt: null },
        ...extra,
      }),
    );

  /** Completed and delivered: a later call of the same intent is a ledger hit. */
  async function completeAndDeliver(executionId: string): Promise<void> {
    await h.complete(executionId, { status: 202, body: { id: `msg_${executionId.slice(-6)}` } });
    await h.ports.commands.handle(
      executionStream(executionId),
      (_loaded, now) => ({
        type: 'RecordDelivery',
        data: { transport: 'rest', replay: false, correlation: { transport: 'rest' } },
        metadata: { now },
      }),
      { causationId: 'test-delivery' },
    );
  }

  /** Plays the approver of a per-use call: requested, then granted (which authorizes it). */
  async function grantApproval(executionId: string): Promise<void> {
    const approvalId = `apr_${executionId.slice(-8)}`;
    for (const command of [
      { type: 'RequestApproval', data: { approvalId, policyVersion: 'test', reason: 'per-use', expiresInMs: 600_000 } },
      { type: 'GrantApproval', data: { approvalId, approver: 'human:ana', reason: 'ok' } },
    ] as const) {
      await h.ports.commands.handle(executionStream(executionId), (_loaded, now) => ({ ...command, metadata: { now } }), {
        causationId: 'test-approval',
      });
    }
  }

  it('a run opened over REST; its calls carry run, attempt and the trigger-derived intent scope', async () => {
    const opened = await http('POST', '/v1/runs', 'key-a', { run_id: 'campaign-1', trigger: 'ticket:OPS-812' });
    expect(opened).toMatchObject({ status: 201, body: { run_id: 'campaign-1', trigger: 'ticket:OPS-812', attempt: 1 } });
    expect((await http('POST', '/v1/runs', 'key-a', { run_id: 'campaign-1', trigger: 'ticket:OPS-812' })).status).toBe(200);
    expect(await http('POST', '/v1/runs', 'key-a', { run_id: 'campaign-1', trigger: 'ticket:OTHER' })).toMatchObject({
      status: 409,
      body: { code: 'trigger_differs' },
    });
    expect((await http('GET', '/v1/runs/campaign-1', 'key-b')).status).toBe(403);

    const { answer } = await email('campaign-1', 'ana@example.com', 'draft A');
    expect(answer.run).toEqual({ id: 'campaign-1', attempt: 1 });
    const accepted = (await h.allEvents()).find(
      (event) => event.type === 'ExecutionAccepted' && event.data['executionId'] === answer.execution_id,
    );
    expect(accepted?.data).toMatchObject({
      intentScope: 'trigger:ticket:OPS-812',
      run: { runId: 'campaign-1', attempt: 1, trigger: 'ticket:OPS-812' },
    });
  });

  it('over MCP (the official SDK client), _meta["onceport/run"] names the run and a bad one is refused naming the path', async () => {
    const mcp = await serveMcp(h, { 'key-a': 'agent:a' });
    const client = new Client({ name: 'runs-test', version: '1.0.0' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers: { Authorization: 'Bearer key-a' } } }),
      );
      const args = { recipient: 'mcp@example.com', campaign_id: 'winter', subject: 'Hi', body: 'Dear MCP' };
      const result = await client.callTool({
        name: 'send_email',
        arguments: args,
        _meta: { 'onceport/run': { id: 'mcp-run-1', trigger: 'webhook:mcp-1' } },
      });
      expect(result.structuredContent).toMatchObject({ run: { id: 'mcp-run-1', attempt: 1 } });
      await expect(
        client.callTool({ name: 'send_email', arguments: args, _meta: { 'onceport/run': { id: 'mcp run 1' } } }),
      ).rejects.toThrow(/_meta\["onceport\/run"\]\.id/);
    } finally {
      await client.close();
      await mcp.close();
    }
  });

  it('a call naming an unknown run without a trigger is refused and records nothing; with a trigger it opens the run', async () => {
    const before = (await h.allEvents()).length;
    await expect(email('never-opened', 'bo@example.com', 'x')).rejects.toMatchObject({ code: 'run_not_found' });
    expect((await h.allEvents()).length).toBe(before);
    const { answer } = await email('opened-by-call', 'bo@example.com', 'x', {
      run: { id: 'opened-by-call', trigger: 'webhook:77', attempt: null },
    });
    expect(answer.run).toEqual({ id: 'opened-by-call', attempt: 1 });
    expect((await http('GET', '/v1/runs/opened-by-call', 'key-a')).body).toMatchObject({ trigger: 'webhook:77', attempt: 1 });
  });

  it('replay: refused while an effect is in flight; once all are settled, attempt 2 hits the ledger for repeats and the divergence report names the rest', async () => {
    await http('POST', '/v1/runs', 'key-a', { run_id: 'campaign-2', trigger: 'schedule:2026-12-01' });
    const recipients = ['a@example.com', 'b@example.com', 'c@example.com'];
    const first = await Promise.all(recipients.map((to) => email('campaign-2', to, 'first draft')));
    const ids = first.map((call) => call.answer.execution_id);
    await completeAndDeliver(ids[0]!);
    await completeAndDeliver(ids[1]!);

    // Asked without starting anything: the same answer, and still attempt 1 afterwards.
    const dry = await http('GET', '/v1/runs/campaign-2/replay-check', 'key-a');
    expect(dry).toMatchObject({ status: 200, body: { attempt: 1, next_attempt: 2, safe: false } });
    const refused = await http('POST', '/v1/runs/campaign-2/replays', 'key-a', {});
    expect(refused).toMatchObject({ status: 409, body: { code: 'replay_unsafe' } });
    expect(refused.body['unsafe_tools']).toEqual([
      { tool: 'send_email', executions: [expect.objectContaining({ execution_id: ids[2], state: 'accepted', reason: 'in_flight' })] },
    ]);
    await expect(email('campaign-2', 'd@example.com', 'x', { run: { id: 'campaign-2', trigger: null, attempt: 2 } })).rejects.toMatchObject(
      {
        code: 'attempt_not_started',
      },
    );

    await completeAndDeliver(ids[2]!);
    expect((await http('GET', '/v1/runs/campaign-2/replay-check', 'key-a')).body).toMatchObject({
      attempt: 1,
      safe: true,
      unsafe_tools: [],
    });
    const replay = await http('POST', '/v1/runs/campaign-2/replays', 'key-a', {});
    expect(replay).toMatchObject({ status: 201, body: { attempt: 2, replay_check: { safe: true, unsafe_tools: [] } } });
    expect((await http('POST', '/v1/runs/campaign-2/replays', 'key-a', {})).status).toBe(201); // attempt 3 (also safe)

    // Attempt 3 re-drafts every body: a and b are ledger hits on attempt 1's executions, d is new, c is not asked again.
    const again = await Promise.all(
      ['a@example.com', 'b@example.com', 'd@example.com'].map((to) => email('campaign-2', to, 'second draft')),
    );
    expect(again.map((call) => call.answer.ledger_hit ?? false)).toEqual([true, true, false]);
    expect(again.map((call) => call.answer.execution_id).slice(0, 2)).toEqual(ids.slice(0, 2));
    expect(again.map((call) => call.answer.run)).toEqual(Array(3).fill({ id: 'campaign-2', attempt: 3 }));

    const report = await http('GET', '/v1/runs/campaign-2/divergence', 'key-a');
    const third = (report.body['attempts'] as Record<string, Record<string, unknown>[]>[])[2]!;
    const idsOf = (list: Record<string, unknown>[] | undefined) => (list ?? []).map((e) => e['execution_id']);
    // Accepted concurrently: listed by acceptance time, which need not follow the recipients' order.
    expect(idsOf(third['requested_again']).sort()).toEqual(ids.slice(0, 2).sort());
    expect(idsOf(third['new'])).toEqual([again[2]!.answer.execution_id]);
    expect(idsOf(third['not_requested_again'])).toEqual([ids[2]]);
    expect(third['not_requested_again']?.[0]).toMatchObject({ tool: 'send_email', target: 'https://mail.example.com', attempt: 1 });
  });

  it('a deliberate repeat is a new execution linked to the one it repeats; refused while that one is unsettled', async () => {
    await http('POST', '/v1/runs', 'key-a', { run_id: 'campaign-3', trigger: 'ticket:OPS-900' });
    const first = await email('campaign-3', 'e@example.com', 'one');
    await expect(
      email('campaign-3', 'e@example.com', 'two', { repeat: { reason: 'the customer asked for it again' } }),
    ).rejects.toBeInstanceOf(RepeatRefusedError);
    await completeAndDeliver(first.answer.execution_id);
    const second = await email('campaign-3', 'e@example.com', 'two', { repeat: { reason: 'the customer asked for it again' } });
    expect(second.created).toBe(true);
    expect(second.answer.repeats).toEqual({
      execution_id: first.answer.execution_id,
      deliberate: true,
      reason: 'the customer asked for it again',
    });
  });

  it('a run that charged a payment: the check names charge_payment; only an admin may force, and the answer lists what may repeat', async () => {
    await http('POST', '/v1/runs', 'key-a', { run_id: 'billing-1', trigger: 'invoice:2026-11' });
    const charge = await h.callTool.call(
      h.request({
        tool: 'charge_payment',
        arguments: { customer_id: 'cus_42', amount_cents: 1200, card_token: 'tok_12345678' },
        run: { id: 'billing-1', trigger: null, attempt: null },
      }),
    );
    await grantApproval(charge.answer.execution_id);
    await completeAndDeliver(charge.answer.execution_id);
    // Its contract says deliberate_repeats: refused — an agent cannot ask for a second charge on its own.
    await expect(
      h.callTool.call(
        h.request({
          tool: 'charge_payment',
          arguments: { customer_id: 'cus_42', amount_cents: 1200, card_token: 'tok_12345678' },
          run: { id: 'billing-1', trigger: null, attempt: null },
          repeat: { reason: 'charge again' },
        }),
      ),
    ).rejects.toThrow(/takes no deliberate repeats/);
    const refused = await http('POST', '/v1/runs/billing-1/replays', 'key-a', {});
    expect(refused.status).toBe(409);
    expect(refused.body['unsafe_tools']).toEqual([
      {
        tool: 'charge_payment',
        executions: [
          expect.objectContaining({ execution_id: charge.answer.execution_id, state: 'completed', reason: 'irreversible_completed' }),
        ],
      },
    ]);
    const reason = 'the first charge was refunded by hand; the customer wants it taken again';
    expect((await http('POST', '/v1/runs/billing-1/replays', 'key-a', { force: { reason } })).status).toBe(403);
    expect((await http('POST', '/v1/runs/billing-1/replays', ADMIN_KEY, { force: {} })).status).toBe(422);
    const forced = await http('POST', '/v1/runs/billing-1/replays', ADMIN_KEY, { force: { reason } });
    expect(forced).toMatchObject({ status: 201, body: { attempt: 2, forced: { by: 'admin:ops', reason } } });
    expect(JSON.stringify(forced.body['forced'])).toContain(charge.answer.execution_id);
    const audited = (await h.allEvents()).find((event) => event.type === 'RunAttemptStarted' && event.streamId === 'run-billing-1');
    expect(audited?.data).toMatchObject({ attempt: 2, requestedBy: 'admin:ops', forced: { by: 'admin:ops', reason, unsafeCount: 1 } });
    expect(audited?.metadata).toMatchObject({ actor: 'admin:ops' });
  });

  it('lists runs newest first, paged: an agent its own, an admin every run by actor or trigger; bad queries are refused naming the parameter', async () => {
    for (const [key, run_id, trigger] of [
      ['key-a', 'list-a1', 'ticket:LIST-1'],
      ['key-a', 'list-a2', 'ticket:LIST-2'],
      ['key-b', 'list-b1', 'ticket:LIST-1'],
    ] as const)
      expect((await http('POST', '/v1/runs', key, { run_id, trigger })).status).toBe(201);
    type Listed = { runs: { run_id: string; actor: string; attempts: number; last_activity_at: string }[]; next_cursor: string | null };
    const list = async (key: string, query: string) =>
      (await http('GET', `/v1/runs${query}`, key)) as { status: number; body: Listed & Record<string, unknown> };

    const own = await list('key-a', '');
    expect(own.status).toBe(200);
    expect(own.body.runs.map((run) => run.run_id).slice(0, 2)).toEqual(['list-a2', 'list-a1']);
    expect(new Set(own.body.runs.map((run) => run.actor))).toEqual(new Set(['agent:a']));
    expect(await list('key-a', '?actor=agent:b')).toMatchObject({ status: 403, body: { code: 'run_of_another_actor' } });

    const all = await list(ADMIN_KEY, '?limit=200');
    expect(all.body.runs.map((run) => run.run_id).slice(0, 3)).toEqual(['list-b1', 'list-a2', 'list-a1']);
    expect(all.body.runs[0]).toMatchObject({ actor: 'agent:b', attempts: 1, last_activity_at: expect.any(String) });
    expect((await list(ADMIN_KEY, '?actor=agent:b')).body.runs.map((run) => run.run_id)).toEqual(['list-b1']);

    const first = await list(ADMIN_KEY, '?trigger=ticket:LIST-1&limit=1');
    expect(first.body).toMatchObject({ runs: [{ run_id: 'list-b1' }], next_cursor: 'list-b1' });
    const second = await list(ADMIN_KEY, '?trigger=ticket:LIST-1&limit=1&cursor=list-b1');
    expect(second.body).toMatchObject({ runs: [{ run_id: 'list-a1' }], next_cursor: null });

    for (const query of ['?limit=0', '?limit=201', '?limit=ten', '?trigger=has%20space', '?colour=blue'])
      expect(await list(ADMIN_KEY, query)).toMatchObject({ status: 400, body: { code: 'invalid_query', errors: [expect.anything()] } });
    expect(await list(ADMIN_KEY, '?cursor=no-such-run')).toMatchObject({ status: 400, body: { code: 'invalid_cursor' } });
    expect((await list('not-a-key', '')).status).toBe(401);
  });
});
