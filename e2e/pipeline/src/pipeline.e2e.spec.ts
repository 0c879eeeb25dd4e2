import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import {
  type Answer,
  KEYS,
  SECRETS,
  type Pipeline,
  answerOf,
  dispatchStartedCount,
  eventsMentioning,
  executionCount,
  mcpClient,
  rest,
  spans,
  startPipeline,
  timeline,
  until,
} from './pipeline-harness';
import { idempotencyKeyStream } from '@onceport/event-store';
import { MetricsWatch, scrape, total } from './metrics-watch';
import { DispatcherInput, authorizedMessage } from './redelivery';

/**
 * The product's first path, end to end: intake, authorization and dispatcher as separate processes
 * over JetStream and PostgreSQL, an MCP SDK client, and a real HTTP target that counts effects.
 */
describe('agents call tools through Onceport (three processes, JetStream, PostgreSQL)', () => {
  let pipeline: Pipeline;

  beforeAll(async () => {
    pipeline = await startPipeline();
  }, 180_000);
  afterAll(() => pipeline?.stop(), 60_000);

  const deployments = (project: string): number =>
    pipeline.target.effects({ route: 'deployments' }).filter((e) => e.params['project'] === project).length;
  const deploy = (project: string, extra: Record<string, unknown> = {}) => ({
    name: 'create_deployment',
    arguments: { project, environment: 'staging', version: '1.4.2', notes: 'first draft', ...extra },
  });

  it('1. a call completes: the agent gets the result and the execution id; 1 effect', async () => {
    const metrics = await MetricsWatch.start(pipeline);
    const client = await mcpClient(pipeline, KEYS.a);
    const answer = answerOf(await client.callTool(deploy('one')));
    expect(answer).toMatchObject({ state: 'completed', replay: false, attached: false, target_status: 201 });
    expect(answer.execution_id).toMatch(/^exe_/);
    expect(answer.result?.body).toMatchObject({ params: { project: 'one' }, idempotency_key: answer.execution_id });
    expect(deployments('one')).toBe(1);
    const events = await until(
      () => timeline(pipeline, answer.execution_id, KEYS.a),
      (t) => t.includes('ResultDelivered'),
    );
    expect(events).toEqual(['ExecutionAccepted', 'ExecutionAuthorized', 'DispatchStarted', 'OutcomeObserved', 'ResultDelivered']);
    // /metrics on each service: one acceptance, one decision, one dispatch to the target's origin, relayed.
    const tool = { tool: 'create_deployment' };
    expect(await metrics.moved('intake', 'onceport_executions_accepted_total', { ...tool, channel: 'http' })).toBe(1);
    expect(await metrics.reaches('authorization', 'onceport_authorization_decisions_total', tool, 1)).toBe(1);
    const succeeded = { ...tool, channel: 'http', outcome: 'succeeded' };
    expect(await metrics.reaches('dispatcher', 'onceport_dispatch_outcomes_total', succeeded, 1)).toBe(1);
    const origin = new URL(pipeline.target.url).origin;
    const latency = { channel: 'http', target: origin, outcome: 'observed' };
    expect(await metrics.reaches('dispatcher', 'onceport_dispatch_duration_seconds_count', latency, 1)).toBe(1);
    // Relayed by whichever replica holds the relay: at least the three of them services act on
    // (DispatchStarted and ResultDelivered stay off JetStream).
    const relayed = await until(
      () => metrics.movedAnywhere('onceport_relay_lag_seconds_count'),
      (n) => n >= 3,
    );
    expect(relayed).toBeGreaterThanOrEqual(3);
    await client.close();
  });

  it('2. the client connection drops after the target applied; a re-issued call on a new session gets the stored result as a replay; 1 effect', async () => {
    pipeline.target.setBehavior({ route: 'deployments', delay_ms: 1500, times: 1 });
    const metrics = await MetricsWatch.start(pipeline);
    const first = await mcpClient(pipeline, KEYS.a);
    const sessionId = (first.transport as unknown as { sessionId: string }).sessionId;
    // A raw POST we abort: the connection drops while the target is still working.
    const aborted = new AbortController();
    const dropped = fetch(`${pipeline.intake.url}/mcp`, {
      method: 'POST',
      signal: aborted.signal,
      headers: {
        authorization: `Bearer ${KEYS.a}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: deploy('two') }),
    })
      .then((r) => r.text())
      .catch(() => 'dropped');
    // Drop it once intake has read the call and stored the execution (not on a timer: an abort that
    // lands before intake reads the request would cancel a request that never started).
    await until(
      () => eventsMentioning(pipeline, '"two"'),
      (n) => n > 0,
    );
    aborted.abort();
    expect(await dropped).toBe('dropped');
    await until(
      async () => deployments('two'),
      (n) => n === 1,
    );

    const second = await mcpClient(pipeline, KEYS.a); // new session, new JSON-RPC id
    const answer = answerOf(await second.callTool(deploy('two')));
    expect(answer).toMatchObject({ state: 'completed', replay: true, attached: true, target_status: 201 });
    expect(deployments('two')).toBe(1);
    const events = await until(
      () => timeline(pipeline, answer.execution_id, KEYS.a),
      (t) => t.includes('ResultDelivered'),
    );
    expect(events).toContain('RetryAttached');
    expect(events.filter((t) => t === 'ResultDelivered')).toHaveLength(1);
    expect(await dispatchStartedCount(pipeline, answer.execution_id)).toBe(1);
    // One execution, one attached retry, no ledger hit (the result was never delivered).
    expect(await metrics.moved('intake', 'onceport_executions_accepted_total', { tool: 'create_deployment' })).toBe(1);
    expect(await metrics.moved('intake', 'onceport_retries_attached_total', { tool: 'create_deployment' })).toBe(1);
    expect(await metrics.moved('intake', 'onceport_ledger_hits_total')).toBe(0);
    await Promise.all([first.close(), second.close()]);
  });

  it('3. a re-drafted generated argument attaches (1 effect); another actor or another intent scope is a new execution', async () => {
    const emails = (campaign: string): number =>
      pipeline.target.effects({ route: 'emails' }).filter((e) => (e.body as { campaign_id?: string }).campaign_id === campaign).length;
    const email = (body: string) => ({
      name: 'send_email',
      arguments: { recipient: 'Ana@Example.com', campaign_id: 'spring-launch', subject: 'Hello', body },
    });
    const metrics = await MetricsWatch.start(pipeline);
    const a = await mcpClient(pipeline, KEYS.a);
    const original = answerOf(await a.callTool(email('Dear Ana, first draft.')));
    expect(original.state).toBe('completed');
    // The model re-drafts the body (a generated argument) and calls again on a new session.
    const again = await mcpClient(pipeline, KEYS.a);
    const redrafted = answerOf(await again.callTool(email('Hi Ana — a rewritten body.')));
    expect(redrafted).toMatchObject({ execution_id: original.execution_id, attached: true, replay: true });
    expect(emails('spring-launch')).toBe(1);

    const b = await mcpClient(pipeline, KEYS.b);
    const otherActor = answerOf(await b.callTool(email('Dear Ana, first draft.')));
    expect(otherActor.execution_id).not.toBe(original.execution_id);
    const otherScope = answerOf(
      await a.callTool({ ...email('Dear Ana, first draft.'), _meta: { 'onceport/intent_scope': 'run:another' } }),
    );
    expect(otherScope.execution_id).not.toBe(original.execution_id);
    expect(emails('spring-launch')).toBe(3);
    // The re-drafted call was answered from the ledger: one hit, three executions, nothing attached.
    expect(await metrics.moved('intake', 'onceport_ledger_hits_total', { tool: 'send_email' })).toBe(1);
    expect(await metrics.moved('intake', 'onceport_executions_accepted_total', { tool: 'send_email' })).toBe(3);
    expect(await metrics.moved('intake', 'onceport_retries_attached_total')).toBe(0);
    await Promise.all([a.close(), again.close(), b.close()]);
  });

  it('4. 50 concurrent identical calls from one actor: one execution, 1 effect, every caller told the same id', async () => {
    // A call that reaches intake after the first answer was delivered is, by DESIGN.md §5, a new
    // intent; the target holds the effect long enough that all 50 arrive while the first is in flight
    // (on a loaded 2-core CI machine, 300 ms was not always enough for the last ones to arrive).
    pipeline.target.setBehavior({ route: 'deployments', delay_ms: 6000, times: 1 });
    const metrics = await MetricsWatch.start(pipeline);
    const clients = await Promise.all(Array.from({ length: 10 }, () => mcpClient(pipeline, KEYS.a)));
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        clients[i % clients.length]!.callTool(deploy('four'), undefined, { timeout: 60_000 }).then(answerOf),
      ),
    );
    expect(new Set(answers.map((x) => x.execution_id)).size).toBe(1);
    expect(deployments('four')).toBe(1);
    const events = await timeline(pipeline, answers[0]!.execution_id, KEYS.a);
    expect(events.filter((t) => t === 'ExecutionAccepted')).toHaveLength(1);
    expect(events.filter((t) => t === 'RetryAttached')).toHaveLength(49);
    expect(await dispatchStartedCount(pipeline, answers[0]!.execution_id)).toBe(1);
    expect(await metrics.moved('intake', 'onceport_executions_accepted_total', { tool: 'create_deployment' })).toBe(1);
    expect(await metrics.moved('intake', 'onceport_retries_attached_total', { tool: 'create_deployment' })).toBe(49);
    await Promise.all(clients.map((c) => c.close()));
  });

  it('5. the target accepts then resets: "outcome unknown", never "failed"; a retry is not re-sent; the reconciler settles it by probe; 1 effect', async () => {
    pipeline.target.setBehavior({ route: 'deployments', accept_then_drop: true, times: 1 });
    // The probe is held (past its 15 s timeout) so the reconciler cannot settle the call while the
    // agent is being told about it: what the agent sees is the unknown outcome itself.
    pipeline.target.setBehavior({ route: 'deployments.status', delay_ms: 60_000 });
    const metrics = await MetricsWatch.start(pipeline);
    const client = await mcpClient(pipeline, KEYS.a);
    try {
      const answer = answerOf(await client.callTool(deploy('five')));
      expect(answer.state).toBe('dispatched_unknown');
      expect(answer.next_step).toMatch(/do not call again/i);
      const retry = answerOf(await client.callTool(deploy('five')));
      expect(retry).toMatchObject({ execution_id: answer.execution_id, attached: true, state: 'dispatched_unknown' });
      expect(retry.next_step).toMatch(/do not call again/i);
      expect(await dispatchStartedCount(pipeline, answer.execution_id)).toBe(1);
      expect(deployments('five')).toBeLessThanOrEqual(1);

      // Released, the next probe finds the deployment under the execution id: completed, not sent again.
      pipeline.target.setBehavior({ route: 'deployments.status', normal: true });
      const settled = await until(
        () => timeline(pipeline, answer.execution_id, KEYS.a),
        (t) => t.includes('OutcomeSettled'),
        60_000,
      );
      expect(settled).toEqual(expect.arrayContaining(['OutcomeUnknown', 'ProbeAttempted', 'OutcomeSettled']));
      const status = answerOf(
        await client.callTool({ name: 'onceport_execution_status', arguments: { execution_id: answer.execution_id } }),
      );
      expect(status.state).toMatch(/^completed/);
      // The agent gets the settled result (the probe's answer, kept by reference) and how it was settled.
      expect(status.result).not.toBeNull();
      expect(status.next_step).toMatch(/confirmed after the outcome was unknown: probe \d+ found the effect applied/);
      expect(deployments('five')).toBe(1);
      expect(await dispatchStartedCount(pipeline, answer.execution_id)).toBe(1);
      // One unknown outcome (found by the dispatcher), one attached retry, settled completed by the reconciler's probe.
      const tool = { tool: 'create_deployment' };
      expect(await metrics.reaches('dispatcher', 'onceport_outcomes_unknown_total', { ...tool, detected_by: 'dispatcher' }, 1)).toBe(1);
      expect(await metrics.reaches('dispatcher', 'onceport_dispatch_outcomes_total', { ...tool, outcome: 'unknown' }, 1)).toBe(1);
      expect(await metrics.moved('intake', 'onceport_retries_attached_total', tool)).toBe(1);
      expect(await metrics.reaches('reconciler', 'onceport_probes_total', { ...tool, verdict: 'applied' }, 1)).toBe(1);
      expect(await metrics.reaches('reconciler', 'onceport_settlements_total', { ...tool, settlement: 'completed' }, 1)).toBe(1);
      expect(await metrics.reaches('reconciler', 'onceport_settlement_seconds_count', { ...tool, settlement: 'completed' }, 1)).toBe(1);
      expect(await metrics.moved('reconciler', 'onceport_settlements_total', { ...tool, settlement: 'needs_review' })).toBe(0);
    } finally {
      pipeline.target.setBehavior({ route: 'deployments.status', normal: true });
      await client.close();
    }
  });

  it('5b. probes that cannot tell end in needs_review; an operator resolves it through the admin API and the agent sees it', async () => {
    pipeline.target.setBehavior({ route: 'deployments', accept_then_drop: true, times: 1 });
    pipeline.target.setBehavior({ route: 'deployments.status', fail_status: 503 });
    const metrics = await MetricsWatch.start(pipeline);
    const reviewBacklog = async () =>
      total(await scrape(pipeline.reconciler.url), 'onceport_executions', { tool: 'create_deployment', state: 'needs_review' });
    const client = await mcpClient(pipeline, KEYS.a);
    try {
      const answer = answerOf(await client.callTool(deploy('five-review')));
      await until(
        () => timeline(pipeline, answer.execution_id, KEYS.a),
        (t) => t.includes('OutcomeSettled'),
      );
      const review = answerOf(
        await client.callTool({ name: 'onceport_execution_status', arguments: { execution_id: answer.execution_id } }),
      );
      expect(review.state).toBe('needs_review');
      // The backlog gauge reads the read model (caught up by the sweep): this execution is in it.
      expect(await until(reviewBacklog, (n) => n === 1)).toBe(1);
      const tool = { tool: 'create_deployment' };
      expect(await metrics.reaches('reconciler', 'onceport_settlements_total', { ...tool, settlement: 'needs_review' }, 1)).toBe(1);
      expect(await metrics.reaches('reconciler', 'onceport_probes_total', { ...tool, verdict: 'cant_tell' }, 2)).toBe(2);
      const resolve = (key: string) =>
        fetch(`${pipeline.reconciler.url}/v1/admin/executions/${answer.execution_id}/resolve`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ resolution: 'applied', reason: 'checked the deploy dashboard: it is live' }),
        });
      expect((await resolve(KEYS.a)).status).toBe(401); // an agent key is not an admin key
      expect((await resolve(pipeline.fixture.adminKey)).status).toBe(200);
      const resolved = answerOf(
        await client.callTool({ name: 'onceport_execution_status', arguments: { execution_id: answer.execution_id } }),
      );
      expect(resolved.state).toMatch(/^completed/);
      expect(await timeline(pipeline, answer.execution_id, KEYS.a)).toContain('ReviewResolved');
      expect(await until(reviewBacklog, (n) => n === 0)).toBe(0);
      expect(deployments('five-review')).toBe(1);
    } finally {
      pipeline.target.setBehavior({ route: 'deployments.status', normal: true });
      await client.close();
    }
  });

  it('6. a JetStream message delivered twice to the dispatcher: 1 effect', async () => {
    // The target holds its answer, so the redeliveries below reach the dispatcher while the first
    // dispatch is still in flight; the dispatcher keeps no inbox, the execution's stream refuses them.
    pipeline.target.setBehavior({ route: 'deployments', delay_ms: 5000, times: 1 });
    const metrics = await MetricsWatch.start(pipeline);
    const client = await mcpClient(pipeline, KEYS.a);
    const input = await DispatcherInput.open(pipeline.nats.url);
    try {
      const pending = client.callTool(deploy('six'), undefined, { timeout: 60_000 }).then(answerOf);
      const applied = await until(
        async () => pipeline.target.effects({ route: 'deployments' }).filter((e) => e.params['project'] === 'six'),
        (e) => e.length > 0,
      );
      const executionId = applied[0]?.idempotencyKey as string;
      const message = await authorizedMessage(pipeline.db, executionId);
      const before = await input.consumerInfo();

      // The relay's own Nats-Msg-Id (the event id): JetStream itself drops it inside its window.
      expect((await input.publish(message, message.eventId)).duplicate).toBe(true);
      // Stored again and handed to the consumer, as after a lost ack: the same event while in flight...
      expect((await input.redeliver(message)).duplicate).toBe(false);
      // ...and a different event id for the same execution, which only the execution's stream can refuse.
      const otherEventId = randomUUID();
      expect((await input.redeliver(message, otherEventId)).duplicate).toBe(false);
      await until(
        () => input.consumerInfo(),
        (info) => info.delivered.consumer_seq >= before.delivered.consumer_seq + 2,
      );

      const answer = await pending;
      expect(answer.execution_id).toBe(executionId);
      // The answer wait can end before the held answer is observed on a loaded machine; the store says when it was.
      expect(
        await until(
          () => timeline(pipeline, executionId, KEYS.a),
          (t) => t.includes('OutcomeObserved'),
        ),
      ).toContain('OutcomeObserved');
      // After completion, the same event once more: the stream says the execution is past dispatch.
      expect((await input.redeliver(message)).duplicate).toBe(false);

      // Evidence, not a sleep: the consumer got all three and acked every message it holds.
      const after = await until(
        () => input.consumerInfo(),
        (info) => info.delivered.consumer_seq >= before.delivered.consumer_seq + 3 && info.num_ack_pending === 0 && info.num_pending === 0,
      );
      expect(after.delivered.consumer_seq - before.delivered.consumer_seq).toBeGreaterThanOrEqual(3);
      expect(after).toMatchObject({ num_ack_pending: 0, num_pending: 0 });
      // Every copy went through the dispatcher's handler and succeeded: none failed or was quarantined.
      const failing = await pipeline.db.pool.query(
        "SELECT 1 FROM onceport.event_quarantine WHERE subscriber = 'consumer:dispatcher' AND event_id::text = ANY($1)",
        [[message.eventId, otherEventId]],
      );
      expect(failing.rowCount).toBe(0);

      expect(deployments('six')).toBe(1);
      expect(await dispatchStartedCount(pipeline, executionId)).toBe(1);
      expect(await metrics.reaches('dispatcher', 'onceport_dispatch_outcomes_total', { tool: 'create_deployment' }, 1)).toBe(1);
    } finally {
      await input.close();
      await client.close();
    }
  });

  it('7. an actor not allowed the tool, and a locked vault: denied, 0 effects, and a retry gets the same denial', async () => {
    const metrics = await MetricsWatch.start(pipeline);
    const limited = await mcpClient(pipeline, KEYS.limited);
    const denied = answerOf(await limited.callTool(deploy('seven')));
    expect(denied).toMatchObject({ state: 'denied', denial: { code: 'actor_not_allowed' } });
    const again = answerOf(await limited.callTool(deploy('seven')));
    expect(again).toMatchObject({ execution_id: denied.execution_id, state: 'denied', attached: true });

    const lock = await fetch(`${pipeline.authorization.url}/v1/admin/vault/lock`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pipeline.fixture.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'incident 42' }),
    });
    expect(lock.status).toBeLessThan(300);
    const a = await mcpClient(pipeline, KEYS.a);
    const locked = answerOf(await a.callTool(deploy('seven-locked')));
    expect(locked).toMatchObject({ state: 'denied', denial: { code: 'vault_locked' } });
    expect(answerOf(await a.callTool(deploy('seven-locked')))).toMatchObject({ execution_id: locked.execution_id, state: 'denied' });
    await fetch(`${pipeline.authorization.url}/v1/admin/vault/unlock`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pipeline.fixture.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'incident over' }),
    });
    expect(deployments('seven') + deployments('seven-locked')).toBe(0);
    // Two denials decided by the ladder, each retry attached to its denial; nothing dispatched.
    const tool = { tool: 'create_deployment' };
    expect(
      await metrics.reaches('authorization', 'onceport_authorization_decisions_total', { ...tool, rung: 'actor_not_allowed' }, 1),
    ).toBe(1);
    expect(await metrics.reaches('authorization', 'onceport_authorization_decisions_total', { ...tool, rung: 'vault_locked' }, 1)).toBe(1);
    expect(await metrics.moved('intake', 'onceport_retries_attached_total', tool)).toBe(2);
    expect(await metrics.moved('dispatcher', 'onceport_dispatch_outcomes_total')).toBe(0);
    await Promise.all([limited.close(), a.close()]);
  });

  it('9. an actor over its rate: its next calls are refused (REST 429, MCP -32029) before anything is written; /metrics counts each refusal', async () => {
    const metrics = await MetricsWatch.start(pipeline);
    const build = { tool: 'get_build_status', arguments: { build_id: 9 }, wait_ms: 0 };
    const first = await rest(pipeline, 'POST', '/v1/executions', KEYS.throttled, build);
    expect(first.body['execution_id']).toMatch(/^exe_/);
    const before = await executionCount(pipeline);
    const refused = await rest(pipeline, 'POST', '/v1/executions', KEYS.throttled, { ...build, arguments: { build_id: 10 } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(String(refused.body['type'])).toMatch(/rate-limited$/);
    const client = await mcpClient(pipeline, KEYS.throttled);
    await expect(client.callTool({ name: 'get_build_status', arguments: { build_id: 11 } })).rejects.toMatchObject({ code: -32029 });
    await client.close();
    expect(await executionCount(pipeline)).toBe(before);
    // Intake counts a refusal before it answers it: no waiting needed.
    expect(await metrics.moved('intake', 'onceport_limit_refusals_total', { limit: 'rate_limited' })).toBe(2);
    expect(await metrics.moved('intake', 'onceport_limit_refusals_total', { limit: 'too_many_in_flight' })).toBe(0);
    expect(await metrics.moved('intake', 'onceport_executions_accepted_total', { tool: 'get_build_status' })).toBe(1);
  });

  it('10. a per-use approval requested, then granted by an admin: 1 charge; /metrics counts the request, the grant and the wait the events record', async () => {
    const metrics = await MetricsWatch.start(pipeline);
    const admin = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
      const response = await fetch(`${pipeline.authorization.url}/v1/admin${path}`, {
        method,
        headers: { authorization: `Bearer ${pipeline.fixture.adminKey}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return (await response.json()) as Record<string, unknown>;
    };
    const charges = (): number =>
      pipeline.target.effects({ route: 'payments' }).filter((e) => (e.body as { customer_id?: string }).customer_id === 'cus_ten').length;
    const asked = await rest(pipeline, 'POST', '/v1/executions', KEYS.a, {
      tool: 'charge_payment',
      arguments: { customer_id: 'cus_ten', amount_cents: 1_000, card_token: 'tok_ten_4242424242' },
      wait_ms: 0,
    });
    const executionId = String(asked.body['execution_id']);
    const approval = await until(
      async () =>
        ((await admin('GET', '/approvals'))['approvals'] as { execution_id: string; approval_id: string }[]).find(
          (a) => a.execution_id === executionId,
        ),
      (found) => found !== undefined,
    );
    const tool = { tool: 'charge_payment' };
    expect(await metrics.reaches('authorization', 'onceport_approvals_requested_total', { ...tool, kind: 'per_use' }, 1)).toBe(1);
    expect(charges()).toBe(0);
    expect(await admin('POST', `/approvals/${approval?.approval_id}/grant`, { reason: 'customer confirmed' })).toMatchObject({
      status: 'granted',
    });
    await until(
      async () => charges(),
      (n) => n === 1,
    );
    const granted = { ...tool, decision: 'granted' };
    expect(await metrics.reaches('authorization', 'onceport_approvals_decided_total', granted, 1)).toBe(1);
    expect(await metrics.reaches('authorization', 'onceport_approval_wait_seconds_count', granted, 1)).toBe(1);
    // The wait observed is the one the events date: from ApprovalRequested to ApprovalGranted.
    const { rows } = await pipeline.db.pool.query<{ event_type: string; at: string }>(
      `SELECT event_type, coalesce(data->>'requestedAt', data->>'decidedAt') AS at FROM onceport.events
        WHERE stream_id = $1 AND event_type IN ('ApprovalRequested', 'ApprovalGranted')`,
      [`execution-${executionId}`],
    );
    const at = (type: string): number => Date.parse(rows.find((row) => row.event_type === type)?.at ?? '');
    const waited = (at('ApprovalGranted') - at('ApprovalRequested')) / 1000;
    expect(waited).toBeGreaterThan(0);
    expect(await metrics.moved('authorization', 'onceport_approval_wait_seconds_sum', granted)).toBeCloseTo(waited, 3);
    expect(charges()).toBe(1);
  });

  it('8. a configured secret never appears in the events table, the logs or the spans', async () => {
    // Its own sends, so this scenario does not lean on earlier ones having run.
    const client = await mcpClient(pipeline, KEYS.a);
    expect(answerOf(await client.callTool(deploy('eight'))).target_status).toBe(201);
    const mail = { recipient: 'eight@example.com', campaign_id: 'eight', subject: 'Hi', body: 'Scenario eight.' };
    expect(answerOf(await client.callTool({ name: 'send_email', arguments: mail })).target_status).toBe(201);
    await client.close();
    // The target did receive each credential it was sent (as a digest of the header, never the value),
    // so a leak would be there to find.
    const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
    const deploysSent = pipeline.target.effects({ route: 'deployments' });
    expect(deploysSent.length).toBeGreaterThan(0);
    for (const effect of deploysSent) expect(effect.authorizationSha256).toBe(sha256(`Bearer ${SECRETS.ONCEPORT_CREDENTIAL_DEPLOY_API}`));
    const mailsSent = pipeline.target.effects({ route: 'emails' });
    expect(mailsSent.length).toBeGreaterThan(0);
    for (const effect of mailsSent) expect(effect.authorizationSha256).toBe(sha256(`Bearer ${SECRETS.ONCEPORT_CREDENTIAL_MAIL_API}`));

    const dump = await pipeline.db.pool.query<{ t: string }>("SELECT string_agg(e::text, E'\\n') AS t FROM onceport.events e");
    const logs = [pipeline.intake, pipeline.authorization, pipeline.dispatcher, pipeline.reconciler].map((p) => p.output()).join('\n');
    // The logs hold what was written while dispatching, so a secret written with it would be seen.
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).toContain('dispatch attempt closed');
    // Spans are exported in batches: wait until each service has written some.
    const exported = await until(
      async () => spans(pipeline),
      (all) => ['intake', 'authorization', 'dispatcher'].every((service) => all.some((span) => span.service === service)),
    );
    const spanText = JSON.stringify(exported);
    expect([...new Set(exported.map((span) => span.service))]).toEqual(expect.arrayContaining(['intake', 'authorization', 'dispatcher']));
    expect(dump.rows[0]?.t ?? '').toContain('DispatchStarted');
    for (const secret of Object.values(SECRETS)) {
      expect(dump.rows[0]?.t ?? '').not.toContain(secret);
      expect(logs).not.toContain(secret);
      expect(spanText).not.toContain(secret);
    }
  });

  it('traces: one trace per execution across intake, authorization and dispatcher', async () => {
    const client = await mcpClient(pipeline, KEYS.a);
    const answer = answerOf(await client.callTool(deploy('traced')));
    // Each service exports its spans in batches: wait until all three wrote theirs for this trace.
    const inTrace = (all: ReturnType<typeof spans>) => {
      const intakeSpan = all.find((s) => s.attributes['onceport.execution_id'] === answer.execution_id && s.name.startsWith('intake'));
      return new Set(all.filter((s) => s.traceId === intakeSpan?.traceId).map((s) => s.service));
    };
    const all = await until(
      async () => spans(pipeline),
      (exported) => inTrace(exported).size >= 3,
    );
    const intakeSpan = all.find((s) => s.attributes['onceport.execution_id'] === answer.execution_id && s.name.startsWith('intake'));
    expect(intakeSpan).toBeDefined();
    const services = new Set(all.filter((s) => s.traceId === intakeSpan?.traceId).map((s) => s.service));
    expect(services).toEqual(new Set(['intake', 'authorization', 'dispatcher']));
    await client.close();
  });

  it("traces: the agent's trace continues — a 2026-07-28 call's _meta traceparent parents the execution's spans in all four services", async () => {
    const agentTrace = randomBytes(16).toString('hex');
    const agentSpan = randomBytes(8).toString('hex');
    // The answer is lost once, so the reconciler probes: all four services act on this execution.
    pipeline.target.setBehavior({ route: 'deployments', accept_then_drop: true, times: 1 });
    const client = new ModernClient({ name: 'traced-agent', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(
      new ModernTransport(new URL(`${pipeline.intake.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${KEYS.a}` } } }),
    );
    try {
      const answer = answerOf(
        await client.callTool({ ...deploy('traced-agent'), _meta: { traceparent: `00-${agentTrace}-${agentSpan}-01` } }),
      );
      const inAgentTrace = (all: ReturnType<typeof spans>) => all.filter((s) => s.traceId === agentTrace);
      const all = await until(
        async () => spans(pipeline),
        (exported) => new Set(inAgentTrace(exported).map((s) => s.service)).size >= 4,
      );
      const traced = inAgentTrace(all);
      expect(new Set(traced.map((s) => s.service))).toEqual(new Set(['intake', 'authorization', 'dispatcher', 'reconciler']));
      const intakeSpan = traced.find((s) => s.service === 'intake' && s.attributes['onceport.execution_id'] === answer.execution_id);
      // The agent's span is the parent of intake's: the execution hangs under the agent's own trace.
      expect(intakeSpan?.parentSpanId).toBe(agentSpan);
    } finally {
      await client.close();
    }
  });

  describe('bad input gets a clear error and creates nothing', () => {
    /** Runs `act` and shows the store did not change: no execution accepted, no event naming the call's project. */
    const recordsNothing = async (project: string, act: () => Promise<void>): Promise<void> => {
      const before = await executionCount(pipeline);
      // Intake appends ExecutionAccepted before it answers a call, so counting after the answer is enough.
      await act();
      expect(await executionCount(pipeline)).toBe(before);
      expect(await eventsMentioning(pipeline, project)).toBe(0);
    };
    const callDeploy = (project: string) => JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: deploy(project) });
    /** A tools/call on a live MCP session (opened with a good key), so only the key or the size can stop it. */
    const mcpPost = async (body: string, authorization: string | null): Promise<number> => {
      const session = await mcpClient(pipeline, KEYS.a);
      try {
        const sessionId = (session.transport as unknown as { sessionId: string }).sessionId;
        const response = await fetch(`${pipeline.intake.url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': sessionId,
            'mcp-protocol-version': '2025-11-25',
            ...(authorization === null ? {} : { authorization }),
          },
          body,
        });
        await response.text();
        return response.status;
      } finally {
        await session.close();
      }
    };

    it('no key on /mcp → 401, nothing recorded', () =>
      recordsNothing('bad-no-key', async () => {
        expect(await mcpPost(callDeploy('bad-no-key'), null)).toBe(401);
      }));

    it('a wrong key on /mcp → 401, nothing recorded', () =>
      recordsNothing('bad-wrong-key', async () => {
        expect(await mcpPost(callDeploy('bad-wrong-key'), 'Bearer key-nobody-has-this-0000')).toBe(401);
      }));

    it('an oversized body on /mcp → 413, nothing recorded', () =>
      recordsNothing('bad-huge', async () => {
        const huge = JSON.stringify({
          jsonrpc: '2.0',
          id: 8,
          method: 'tools/call',
          params: deploy('bad-huge', { notes: 'n'.repeat(2 * 1024 * 1024) }),
        });
        expect(await mcpPost(huge, `Bearer ${KEYS.a}`)).toBe(413);
      }));

    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${pipeline.intake.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${KEYS.a}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body,
      });

    it('malformed JSON → -32700; valid JSON that is not JSON-RPC → -32600; no key or a wrong key → 401', async () => {
      const before = await executionCount(pipeline);
      const malformed = await post('{"jsonrpc": "2.0", "method": ');
      expect(malformed.status).toBe(400);
      expect(((await malformed.json()) as { error: { code: number } }).error.code).toBe(-32700);
      const notRpc = await post(JSON.stringify({ hello: 'world' }));
      expect(((await notRpc.json()) as { error: { code: number } }).error.code).toBe(-32600);
      expect((await post('{}', { authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await rest(pipeline, 'POST', '/v1/executions', null, { tool: 'create_deployment', arguments: {} })).status).toBe(401);
      expect(await executionCount(pipeline)).toBe(before);
    });

    it('unknown tool and schema violations → -32602 naming the failing path; oversized body → 413', async () => {
      const before = await executionCount(pipeline);
      const client = await mcpClient(pipeline, KEYS.a);
      await expect(client.callTool({ name: 'launch_rocket', arguments: {} })).rejects.toMatchObject({ code: -32602 });
      await expect(
        client.callTool({ name: 'create_deployment', arguments: { project: 'Bad Name!', environment: 'staging', version: '1' } }),
      ).rejects.toThrow(/\$\.project/);
      const huge = await rest(pipeline, 'POST', '/v1/executions', KEYS.a, {
        tool: 'create_deployment',
        arguments: { project: 'x', environment: 'staging', version: 'v', notes: 'n'.repeat(2 * 1024 * 1024) },
      });
      expect(huge.status).toBe(413);
      expect(await executionCount(pipeline)).toBe(before);
      await client.close();
    });
  });

  describe('REST with Idempotency-Key (IETF httpapi draft)', () => {
    const body = (project: string) => ({ tool: 'create_deployment', arguments: { project, environment: 'staging', version: '9.9.9' } });

    it('same key, same payload after completion → the first response, byte for byte; other payload → 422; in flight → 409', async () => {
      const key = `idem-${randomUUID()}`;
      const first = await rest(pipeline, 'POST', '/v1/executions', KEYS.a, body('rest-one'), { 'idempotency-key': key });
      expect(first.status).toBe(200);
      const again = await rest(pipeline, 'POST', '/v1/executions', KEYS.a, body('rest-one'), { 'idempotency-key': key });
      expect(again.status).toBe(first.status);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const other = await rest(pipeline, 'POST', '/v1/executions', KEYS.a, body('rest-other'), { 'idempotency-key': key });
      expect(other.status).toBe(422);
      expect(deployments('rest-one') + deployments('rest-other')).toBe(1);

      // Held long enough that the second request is answered while the first is still in flight.
      pipeline.target.setBehavior({ route: 'deployments', delay_ms: 6000, times: 1 });
      const slowKey = `idem-${randomUUID()}`;
      const slow = rest(pipeline, 'POST', '/v1/executions', KEYS.a, body('rest-slow'), { 'idempotency-key': slowKey });
      await until(
        async () => deployments('rest-slow'),
        (n) => n === 1,
        10_000,
      );
      // The key is bound just after the acceptance, beside the call's way to the target: the target
      // seeing the deployment does not mean the binding has committed. Before it has, a reuse of the
      // key is a new request of the same intent, which attaches to the execution and waits for it.
      await until(
        async () =>
          (
            await pipeline.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM onceport.events WHERE stream_id = $1', [
              idempotencyKeyStream('agent:a', slowKey).id,
            ])
          ).rows[0]?.n ?? 0,
        (n) => n === 1,
        10_000,
      );
      const inFlight = await rest(pipeline, 'POST', '/v1/executions', KEYS.a, body('rest-slow'), { 'idempotency-key': slowKey });
      expect(inFlight.status).toBe(409);
      expect(inFlight.body['execution_id']).toBe((await slow).body['execution_id']);
    });

    it("GET /v1/executions/{id} shows state and timeline to its actor; another actor's key is 401 and sees nothing", async () => {
      const created = await rest(pipeline, 'POST', '/v1/executions', KEYS.a, body('rest-get'));
      const id = String(created.body['execution_id']);
      const mine = await rest(pipeline, 'GET', `/v1/executions/${id}`, KEYS.a);
      expect(mine.status).toBe(200);
      expect((mine.body['timeline'] as unknown[]).length).toBeGreaterThan(2);
      const other = await rest(pipeline, 'GET', `/v1/executions/${id}`, KEYS.b);
      expect(other.status).toBe(401);
      expect(other.text).not.toContain('rest-get');
      expect(other.text).not.toContain('agent:a');
    });
  });
});

export type { Answer };
