import { randomUUID } from 'node:crypto';
import {
  type Operators,
  SECRETS,
  SUPERVISED_KEY,
  admin,
  agentCall,
  agentStatus,
  eventCount,
  executionWithArgument,
  issueAgentProcess,
  startOperators,
  until,
} from './operators-harness';

/**
 * Issue #5 against the real apps: intake, authorization, dispatcher and reconciler as separate
 * processes over JetStream and PostgreSQL, an operator on the admin API, and a real HTTP target
 * that counts effects.
 */
describe('operators: approvals, vault and revert (four processes, JetStream, PostgreSQL)', () => {
  let ops: Operators;

  beforeAll(async () => {
    ops = await startOperators();
  }, 180_000);
  afterAll(async () => {
    await ops?.stop();
  });

  const CARD = 'tok_visa_4242424242';
  const charge = (customer: string) => ({
    customer_id: customer,
    amount_cents: 4_200,
    card_token: CARD,
    description: `model-written ${randomUUID()}`,
  });
  const charges = (customer: string): number =>
    ops.target.effects({ route: 'payments' }).filter((e) => (e.body as { customer_id?: string }).customer_id === customer).length;
  const deployments = (project: string): number =>
    ops.target.effects({ route: 'deployments' }).filter((e) => e.params['project'] === project).length;
  const emails = (campaign: string): number =>
    ops.target.effects({ route: 'emails' }).filter((e) => (e.body as { campaign_id?: string }).campaign_id === campaign).length;
  const finished = (state: unknown): boolean => typeof state === 'string' && /^(completed|failed|denied)/.test(state);

  it('1. per-use: request → the approver sees the original record → grant → one effect; retries while waiting ask nothing again', async () => {
    const first = await agentCall(ops, 'charge_payment', charge('cus_one'));
    expect(first).toMatchObject({
      status: 200,
      body: { state: 'awaiting_approval', next_step: expect.stringContaining('Waiting for a human approval') },
    });
    const executionId = String(first.body['execution_id']);

    // Two retries (the model re-drafted the description): the same execution, the same pending approval.
    for (const _ of [1, 2])
      expect(await agentCall(ops, 'charge_payment', charge('cus_one'))).toMatchObject({
        body: { execution_id: executionId, state: 'awaiting_approval', attached: true },
      });
    expect(await eventCount(ops, executionId, 'ApprovalRequested')).toBe(1);

    const pending = await admin(ops, 'GET', '/approvals');
    const listed = (pending.body['approvals'] as { execution_id: string; approval_id: string }[]).find(
      (a) => a.execution_id === executionId,
    );
    expect(listed).toBeDefined();
    const view = await admin(ops, 'GET', `/approvals/${listed!.approval_id}`);
    expect(view).toMatchObject({
      status: 200,
      body: {
        status: 'pending',
        kind: 'per_use',
        actor: 'agent:ops',
        tool: 'charge_payment',
        target: { channel: 'http', method: 'POST', url: `${ops.target.url}/v1/charges` },
        record: {
          tool: 'charge_payment',
          arguments: { customer_id: 'cus_one', amount_cents: 4_200, currency: 'EUR', card_token: { $hmac: expect.any(String) } },
        },
        reason: 'charge_payment uses a per-use credential: every call needs a human approval.',
        first_dispatched_at: null,
        known_outcome: null,
        retries_attached: 2,
        retry_note:
          '2 retries attached to this execution; nothing was re-sent and no second approval was requested. The retries wait for this decision.',
      },
    });
    // Secrets never shown: not the card token, not the credential, not the model-written text.
    const shown = JSON.stringify(view.body);
    for (const secret of [CARD, ...Object.values(SECRETS), 'model-written']) expect(shown).not.toContain(secret);
    expect(charges('cus_one')).toBe(0);

    const granted = await admin(ops, 'POST', `/approvals/${listed!.approval_id}/grant`, { reason: 'customer confirmed by phone' });
    expect(granted).toMatchObject({
      status: 200,
      body: { status: 'granted', decided_by: 'ops:test-admin', decision_reason: 'customer confirmed by phone' },
    });
    const done = await until(
      () => agentStatus(ops, executionId),
      (r) => finished(r.body['state']),
    );
    expect(done.body).toMatchObject({ state: expect.stringMatching(/^completed/), target_status: 201 });
    expect(charges('cus_one')).toBe(1);

    const after = await admin(ops, 'GET', `/approvals/${listed!.approval_id}`);
    expect(after.body).toMatchObject({
      status: 'granted',
      first_dispatched_at: expect.any(String),
      known_outcome: { state: expect.stringMatching(/^completed/), target_status: 201 },
    });
    // The operator's retry of the same decision answers the current view; the other way is refused.
    expect(await admin(ops, 'POST', `/approvals/${listed!.approval_id}/grant`, { reason: 'clicked twice' })).toMatchObject({
      status: 200,
      body: { status: 'granted' },
    });
    expect(await admin(ops, 'POST', `/approvals/${listed!.approval_id}/reject`, { reason: 'too late' })).toMatchObject({
      status: 409,
      body: { code: 'approval_already_decided' },
    });
    expect(charges('cus_one')).toBe(1);
  });

  it('2. per-use: reject → denied, 0 effects; the agent retrying gets the same denial, no new approval', async () => {
    const first = await agentCall(ops, 'charge_payment', charge('cus_two'));
    const executionId = String(first.body['execution_id']);
    const approvalId = `apr_${executionId.slice(4)}`;
    expect(await admin(ops, 'POST', `/approvals/${approvalId}/reject`, { reason: 'wrong customer' })).toMatchObject({
      status: 200,
      body: { status: 'rejected', decided_by: 'ops:test-admin' },
    });
    expect((await agentStatus(ops, executionId)).body).toMatchObject({
      state: 'denied',
      denial: { code: 'approval_rejected', reason: 'Rejected by ops:test-admin: wrong customer' },
    });
    expect(await agentCall(ops, 'charge_payment', charge('cus_two'))).toMatchObject({
      body: { execution_id: executionId, state: 'denied', attached: true },
    });
    expect(await eventCount(ops, executionId, 'ApprovalRequested')).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 500)); // had anything been dispatched, it would have arrived by now
    expect(charges('cus_two')).toBe(0);
  });

  it('3. vault lock: calls not yet sent are denied (a new one, and one authorized but queued behind a held dispatch), a pending approval cannot be granted, and an execution already dispatched still completes', async () => {
    const deploy = (project: string) => ({ project, environment: 'staging', version: '1.0.0' });
    const LOCKED = 'The vault is locked: incident 5 (by ops:test-admin). Every call is denied until an operator unlocks it.';
    // The target holds the first deployment; the dispatcher (one dispatch at a time) is busy with it
    // while the steps below queue a call, ask for an approval and lock (held 12 s, under the 15 s timeout).
    ops.target.setBehavior({ route: 'deployments', delay_ms: 12_000, times: 1 });
    const inFlight = agentCall(ops, 'create_deployment', deploy('vault-inflight'));
    await until(
      async () => deployments('vault-inflight'),
      (n) => n === 1,
      15_000,
    );
    // A second call is authorized and waits for the dispatcher: not sent yet when the vault is locked.
    const queuedCall = agentCall(ops, 'create_deployment', deploy('vault-queued'));
    const queuedId =
      (await until(
        () => executionWithArgument(ops, 'project', 'vault-queued'),
        (id) => id !== null,
        15_000,
      )) ?? 'none';
    expect(
      await until(
        () => eventCount(ops, queuedId, 'ExecutionAuthorized'),
        (n) => n === 1,
        15_000,
      ),
    ).toBe(1);
    const waiting = await agentCall(ops, 'charge_payment', charge('cus_vault'));
    const approvalId = `apr_${String(waiting.body['execution_id']).slice(4)}`;

    expect(await eventCount(ops, queuedId, 'DispatchStarted')).toBe(0);
    expect(await admin(ops, 'POST', '/vault/lock', { reason: 'incident 5' })).toMatchObject({ status: 200, body: { status: 'locked' } });
    try {
      expect(await agentCall(ops, 'create_deployment', deploy('vault-new'))).toMatchObject({
        body: { state: 'denied', denial: { code: 'vault_locked', reason: LOCKED } },
      });
      expect(await admin(ops, 'POST', `/approvals/${approvalId}/grant`, { reason: 'go' })).toMatchObject({
        status: 409,
        body: { code: 'vault_locked', detail: expect.stringContaining(LOCKED) },
      });
      const dispatched = await inFlight;
      const settled = await until(
        () => agentStatus(ops, String(dispatched.body['execution_id'])),
        (r) => finished(r.body['state']),
      );
      expect(settled.body).toMatchObject({ state: expect.stringMatching(/^completed/), target_status: 201 });
      // The queued call reaches the dispatcher after the lock: denied by it, never sent.
      const held = await until(
        () => agentStatus(ops, queuedId),
        (r) => finished(r.body['state']),
      );
      expect(held.body).toMatchObject({ state: 'denied', denial: { code: 'vault_locked', reason: LOCKED } });
      expect((await queuedCall).body).toMatchObject({ execution_id: queuedId });
      expect(await eventCount(ops, queuedId, 'DispatchStarted')).toBe(0);
    } finally {
      await admin(ops, 'POST', '/vault/unlock', { reason: 'incident over' });
    }
    expect(deployments('vault-inflight')).toBe(1);
    expect(deployments('vault-queued')).toBe(0);
    expect(deployments('vault-new')).toBe(0);
    expect(charges('cus_vault')).toBe(0);
    expect(await admin(ops, 'POST', `/approvals/${approvalId}/reject`, { reason: 'incident cleanup' })).toMatchObject({ status: 200 });
  });

  it('4. revert: a ledger hit answers the stored result until the execution is reverted; then the same intent runs again', async () => {
    const mail = { recipient: 'ana@example.com', campaign_id: 'revert-campaign', subject: 'Hello', body: 'First draft' };
    const first = await agentCall(ops, 'send_email', mail);
    expect(first.body).toMatchObject({ state: expect.stringMatching(/^completed/) });
    const executionId = String(first.body['execution_id']);
    expect(await agentCall(ops, 'send_email', { ...mail, body: 'Second draft' })).toMatchObject({
      body: { execution_id: executionId, replay: true },
    });
    expect(emails('revert-campaign')).toBe(1);

    expect(await admin(ops, 'POST', `/executions/${executionId}/revert`, {})).toMatchObject({
      status: 400,
      body: { code: 'reason_required' },
    });
    expect(await admin(ops, 'POST', `/executions/${executionId}/revert`, { reason: 'the provider bounced it; recalled' })).toEqual({
      status: 200,
      body: { execution_id: executionId, state: 'reverted', reverted_by: 'ops:test-admin' },
    });
    expect(await eventCount(ops, executionId, 'ExecutionReverted')).toBe(1);

    const again = await agentCall(ops, 'send_email', { ...mail, body: 'Third draft' });
    expect(again.body).toMatchObject({ state: expect.stringMatching(/^completed/), replay: false });
    expect(again.body['execution_id']).not.toBe(executionId);
    expect(emails('revert-campaign')).toBe(2);
    expect(await admin(ops, 'POST', '/executions/exe_01JNQ7ZK3M8V2C4D6F8G0H2J4K/revert', { reason: 'x' })).toMatchObject({
      status: 404,
      body: { code: 'execution_not_found' },
    });
  });

  it('5. a new agent process of a supervised actor waits for a human session grant; once given, that process calls freely, another one asks again, a made-up or borrowed name is refused', async () => {
    const deploy = (project: string) => ({ project, environment: 'staging', version: '2.0.0' });
    // REST agent processes are issued by intake, bound to the actor: a runtime asks for one at start.
    const night1 = await issueAgentProcess(ops, SUPERVISED_KEY);
    const as = { key: SUPERVISED_KEY, agentProcess: night1 };
    const first = await agentCall(ops, 'create_deployment', deploy('sup-one'), as);
    expect(first.body).toMatchObject({ state: 'awaiting_approval' });
    const approvalId = `apr_${String(first.body['execution_id']).slice(4)}`;
    expect(await admin(ops, 'GET', `/approvals/${approvalId}`)).toMatchObject({
      body: {
        kind: 'session',
        actor: 'agent:supervised',
        agent_process: night1,
        reason: `New agent process needs a session grant: ${night1} of agent:supervised.`,
      },
    });
    expect(deployments('sup-one')).toBe(0);

    expect(await admin(ops, 'POST', `/approvals/${approvalId}/grant`, { reason: 'our nightly release runtime' })).toMatchObject({
      status: 200,
      body: { status: 'granted' },
    });
    const done = await until(
      () => agentStatus(ops, String(first.body['execution_id']), SUPERVISED_KEY),
      (r) => finished(r.body['state']),
    );
    expect(done.body).toMatchObject({ state: expect.stringMatching(/^completed/) });
    // The same process again: no approval this time.
    expect((await agentCall(ops, 'create_deployment', deploy('sup-two'), as)).body).toMatchObject({
      state: expect.stringMatching(/^completed/),
    });
    // Another process of the same actor asks again.
    const other = await agentCall(ops, 'create_deployment', deploy('sup-three'), {
      key: SUPERVISED_KEY,
      agentProcess: await issueAgentProcess(ops, SUPERVISED_KEY),
    });
    expect(other.body).toMatchObject({ state: 'awaiting_approval' });
    // The grant cannot be stepped into by naming a process: a made-up name is refused, and so is the
    // granted process sent with another actor's key.
    expect(
      await agentCall(ops, 'create_deployment', deploy('sup-four'), { key: SUPERVISED_KEY, agentProcess: 'runtime-night-1' }),
    ).toMatchObject({ status: 400, body: { type: 'https://onceport.dev/problems/unknown-agent-process' } });
    expect(await agentCall(ops, 'create_deployment', deploy('sup-five'), { agentProcess: night1 })).toMatchObject({
      status: 403,
      body: { type: 'https://onceport.dev/problems/agent-process-of-another-actor' },
    });
    expect([
      deployments('sup-one'),
      deployments('sup-two'),
      deployments('sup-three'),
      deployments('sup-four'),
      deployments('sup-five'),
    ]).toEqual([1, 1, 0, 0, 0]);
    await admin(ops, 'POST', `/approvals/apr_${String(other.body['execution_id']).slice(4)}/reject`, { reason: 'not a runtime we know' });
  });

  it('6. an approval nobody decides in time ends the execution as denied (approval_expired), 0 effects; a late grant is 409', async () => {
    await ops.restartAuthorization({ ONCEPORT_APPROVAL_TTL: '2000', ONCEPORT_APPROVAL_SWEEP_MS: '200' });
    const first = await agentCall(ops, 'charge_payment', charge('cus_late'));
    expect(first.body).toMatchObject({ state: 'awaiting_approval' });
    const executionId = String(first.body['execution_id']);
    const denied = await until(
      () => agentStatus(ops, executionId),
      (r) => r.body['state'] === 'denied',
      20_000,
    );
    expect(denied.body).toMatchObject({
      state: 'denied',
      denial: { code: 'approval_expired', reason: expect.stringContaining('expired at') },
    });
    const approvalId = `apr_${executionId.slice(4)}`;
    expect(await admin(ops, 'GET', `/approvals/${approvalId}`)).toMatchObject({
      body: { status: 'expired', decided_by: 'svc:authorization' },
    });
    expect(await admin(ops, 'POST', `/approvals/${approvalId}/grant`, { reason: 'sorry, was at lunch' })).toMatchObject({
      status: 409,
      body: { code: 'approval_expired' },
    });
    expect(charges('cus_late')).toBe(0);
  });
});
