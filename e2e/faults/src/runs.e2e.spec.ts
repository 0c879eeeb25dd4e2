import { AGENT_KEY, FaultCluster, type StoredEventRow, sleep } from './fault-cluster';

/**
 * Runs and replays (DESIGN.md §7, issue 16) against the real apps as processes, real PostgreSQL and
 * JetStream, and the real HTTP target, which does NOT honour idempotency keys here: every send it
 * receives is an e-mail, so a second send of one recipient shows up as a duplicate.
 *
 * 1. A campaign of 100 e-mails dies with e-mail 41 in flight (the dispatcher SIGKILLed once the
 *    target applied it, its answer held back); the reconciler settles 41 by its probe; the replay
 *    check says yes only then; attempt 2 re-drafts every body and sends only 42–100; attempt 3
 *    drops 10 recipients and the divergence report names exactly those 10.
 * 2. A run that charged a payment (irreversible, per-use approval granted through the approvals
 *    admin API): the replay check refuses naming the charge; an operator forces it with a reason,
 *    audited in the run's stream.
 */
const RECIPIENTS = Array.from({ length: 100 }, (_, i) => `r${String(i + 1).padStart(3, '0')}@example.com`);
/** Attempt 3 leaves out these ten (0-based): five first sent in attempt 1, five in attempt 2. */
const DROPPED = [2, 10, 18, 26, 34, 49, 59, 69, 79, 89];
const DONE = ['completed', 'completed_result_not_delivered'];
const PAYMENTS_SECRET = 'runs-e2e-payments-secret';

/**
 * The campaign's e-mail tool: idempotent with the execution id as the provider's key, a probe that
 * asks the provider whether that key was sent, and a ledger that turns a replay into a hit. The 2 s
 * timeout keeps e-mail 41's held answer from timing out before the test kills the dispatcher (the
 * kill follows the applied effect within milliseconds, and the test checks it did); the lease the
 * reconciler waits out is that plus 5 s.
 */
const CAMPAIGN_CONTRACTS = `
tools:
  - name: campaign_email
    title: Send one e-mail of a campaign
    description: One e-mail per recipient per campaign; a replay of the run is a ledger hit.
    channel: http
    target:
      origin: http://fault-target
      method: POST
      path: /v3/messages
      timeout: 2s
      idempotency_header: Idempotency-Key
    arguments:
      type: object
      properties:
        recipient: { type: string, format: email }
        campaign_id: { type: string, minLength: 1 }
        subject: { type: string, maxLength: 200 }
        body: { type: string }
      required: [recipient, campaign_id, subject, body]
    roles:
      recipient: { role: identity, normalize: [email] }
      campaign_id: identity
      subject: generated
      body: generated
    effect: idempotent
    probe:
      method: GET
      path: /v3/messages/by-key/{execution_id}
      applied: { status: [200] }
      not_applied: { status: [404] }
    correlation_window: 1h
    ledger_retention: 30d
`;

interface Reply {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** The fields of an agent's answer these proofs read. */
interface CallAnswer {
  readonly execution_id: string;
  readonly state: string;
  readonly replay: boolean;
  readonly attached: boolean;
  readonly ledger_hit?: true;
  readonly run?: { readonly id: string; readonly attempt: number };
}

interface ExecutionView {
  readonly execution_id: string;
  readonly tool: string;
  readonly attempt: number;
}

interface AttemptReport {
  readonly attempt: number;
  readonly requested_again: ExecutionView[];
  readonly new: ExecutionView[];
  readonly not_requested_again: ExecutionView[];
  readonly still_open: ExecutionView[];
}

let c: FaultCluster;

beforeAll(async () => {
  c = await FaultCluster.start({
    contracts: { 'runs.yaml': CAMPAIGN_CONTRACTS },
    appEnv: { dispatcher: { ONCEPORT_CREDENTIAL_PAYMENTS_LIVE: PAYMENTS_SECRET } },
  });
}, 120_000);
afterAll(async () => {
  await c?.stop();
});

async function api(method: string, url: string, key: string, body?: unknown, signal?: AbortSignal): Promise<Reply> {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(40_000)]) : AbortSignal.timeout(40_000),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const intake = (path: string): string => `${c.app('intake').url}${path}`;

/**
 * One tool call of a run over REST, as an agent runtime makes it. It waits (up to 30 s) for an
 * outcome, so a loaded machine still gets every answer with its result, delivered.
 */
async function call(tool: string, args: Record<string, unknown>, runId: string, signal?: AbortSignal): Promise<CallAnswer> {
  const request = { tool, arguments: args, run: { id: runId }, wait_ms: 30_000 };
  const reply = await api('POST', intake('/v1/executions'), AGENT_KEY, request, signal);
  if (reply.status >= 300) throw new Error(`${tool} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return reply.body as unknown as CallAnswer;
}

/** E-mail n of the campaign, drafted anew by each attempt: the generated text never matches twice. */
const email = (runId: string, index: number, attempt: number, signal?: AbortSignal): Promise<CallAnswer> =>
  call(
    'campaign_email',
    {
      recipient: RECIPIENTS[index],
      campaign_id: 'winter-2026',
      subject: `Winter offers (draft ${attempt}.${index})`,
      body: `Dear customer ${index + 1}, attempt ${attempt} wrote this at ${Date.now()}.`,
    },
    runId,
    signal,
  );

/** Calls in order, `width` at a time: an agent working through a list. */
async function inBatches(indexes: readonly number[], width: number, send: (index: number) => Promise<CallAnswer>): Promise<CallAnswer[]> {
  const answers: CallAnswer[] = [];
  for (let i = 0; i < indexes.length; i += width) answers.push(...(await Promise.all(indexes.slice(i, i + width).map(send))));
  return answers;
}

async function until<T>(
  what: string,
  probe: () => Promise<T> | T,
  done: (value: T) => boolean,
  everyMs = 100,
  timeoutMs = 45_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}\n${c.gateway.outputs(1500)}`);
    await sleep(everyMs);
  }
}

async function streamOf(executionId: string): Promise<StoredEventRow[]> {
  const rows = await c.db.pool.query(
    `SELECT stream_id, event_type, data, metadata FROM onceport.events WHERE stream_id = $1 ORDER BY stream_version`,
    [`execution-${executionId}`],
  );
  return rows.rows.map((row) => ({ streamId: row.stream_id, type: row.event_type, data: row.data, actor: row.metadata?.actor ?? null }));
}

const replay = (runId: string, key = AGENT_KEY, body: unknown = {}): Promise<Reply> =>
  api('POST', intake(`/v1/runs/${runId}/replays`), key, body);
const ids = (views: readonly ExecutionView[]): string[] => views.map((view) => view.execution_id).sort();

describe('runs and replays against the real apps (DESIGN.md §7)', () => {
  it('a campaign of 100 dies with e-mail 41 in flight; replayed re-drafted: 40 ledger hits, 41 settled by its probe, 59 sends, one e-mail per recipient; a replay without 10 recipients names those 10', async () => {
    const run = 'campaign-winter-2026';
    expect((await api('POST', intake('/v1/runs'), AGENT_KEY, { run_id: run, trigger: 'schedule:winter-2026' })).status).toBe(201);

    // Attempt 1: e-mails 1..40, one after the other.
    const first: CallAnswer[] = [];
    for (let i = 0; i < 40; i++) first.push(await email(run, i, 1));
    expect(first.map((a) => DONE.includes(a.state))).toEqual(Array(40).fill(true));
    expect(first.every((a) => a.run?.attempt === 1 && !a.attached)).toBe(true);

    // E-mail 41: the target applies it and holds its answer; the dispatcher dies waiting for it,
    // and so does the agent's attempt 1 (its call is dropped unanswered).
    expect(c.target.effectCount({ route: 'emails' })).toBe(40);
    c.target.setBehavior({ route: 'emails', delay_ms: 60_000, times: 1 });
    const agentDies = new AbortController();
    const sending41 = email(run, 40, 1, agentDies.signal).catch((error: unknown) => error);
    await until(
      'e-mail 41 applied at the target',
      () => c.target.effectCount({ route: 'emails' }),
      (n) => n === 41,
      5,
    );
    await c.gateway.kill('dispatcher', 0, 'SIGKILL');
    agentDies.abort();
    expect(await sending41).toMatchObject({ name: 'AbortError' });
    const id41 = c.target.effects({ route: 'emails' })[40]?.idempotencyKey as string;
    const streamAtKill = (await streamOf(id41)).map((e) => e.type);
    expect(streamAtKill).toContain('DispatchStarted');
    expect(streamAtKill.filter((type) => type.startsWith('Outcome'))).toEqual([]);

    // The orchestrator asks right away: no, 41 is still open. (A 503 says the read models were being
    // applied by another replica at that instant: the check never decides on a partial read; ask again.)
    const refused = await until(
      'a replay check that decides',
      () => replay(run),
      (r) => r.status !== 503,
      250,
    );
    expect(refused).toMatchObject({ status: 409, body: { code: 'replay_unsafe' } });
    expect(refused.body['unsafe_tools']).toEqual([
      {
        tool: 'campaign_email',
        executions: [
          expect.objectContaining({ execution_id: id41, attempt: 1, reason: expect.stringMatching(/^(in_flight|outcome_unknown)$/) }),
        ],
      },
    ]);

    await c.restart('dispatcher');

    // The orchestrator asks again until the check says yes: once the reconciler settled 41.
    const second = await until(
      'the replay check to allow attempt 2',
      () => replay(run),
      (r) => r.status === 201,
      250,
    );
    expect(second.body).toMatchObject({ attempt: 2, replay_check: { safe: true, unsafe_tools: [] } });
    const events41 = await streamOf(id41);
    expect(events41.filter((e) => e.type === 'ProbeAttempted').map((e) => e.data['verdict'])).toContain('applied');
    expect(events41.filter((e) => e.type === 'OutcomeSettled').map((e) => e.data['settlement'])).toEqual(['completed']);
    expect(events41.filter((e) => e.type === 'DispatchStarted')).toHaveLength(1);
    expect(events41.filter((e) => e.type === 'OutcomeObserved')).toHaveLength(0);
    // A ledger hit needs the result delivered: intake records that after writing each answer.
    await until(
      'e-mails 1–40 recorded as delivered',
      async () =>
        (await Promise.all(first.map(async (a) => (await streamOf(a.execution_id)).some((e) => e.type === 'ResultDelivered')))).every(
          Boolean,
        ),
      (all) => all,
    );

    // Attempt 2: all 100, every body re-drafted.
    const again = await inBatches(
      RECIPIENTS.map((_, i) => i),
      10,
      (i) => email(run, i, 2),
    );
    expect(again.every((a) => a.run?.id === run && a.run.attempt === 2)).toBe(true);
    const hits = again.slice(0, 40);
    expect(hits.map((a) => a.ledger_hit ?? false)).toEqual(Array(40).fill(true));
    expect(hits.map((a) => a.execution_id)).toEqual(first.map((a) => a.execution_id));
    // 41 is answered from its settled execution: the stored result, nothing sent.
    expect(again[40]).toMatchObject({ execution_id: id41, attached: true, replay: true });
    expect(DONE).toContain(again[40]?.state);
    const sent = again.slice(41);
    expect(sent.map((a) => a.attached || a.ledger_hit === true)).toEqual(Array(59).fill(false));
    expect(sent.map((a) => DONE.includes(a.state))).toEqual(Array(59).fill(true));
    expect(new Set(again.map((a) => a.execution_id)).size).toBe(100);

    // Counted at the target: one e-mail per recipient; 1–41 carry attempt 1's text, 42–100 attempt 2's.
    const expectOneEmailEach = (): void => {
      const mails = c.target.effects({ route: 'emails' });
      const perRecipient = new Map<string, string[]>();
      for (const mail of mails) {
        const body = mail.body as { recipient: string; subject: string };
        perRecipient.set(body.recipient, [...(perRecipient.get(body.recipient) ?? []), body.subject]);
      }
      expect(mails).toHaveLength(100);
      expect([...perRecipient.keys()].sort()).toEqual(RECIPIENTS);
      expect(RECIPIENTS.filter((r) => perRecipient.get(r)?.length !== 1)).toEqual([]);
      expect(RECIPIENTS.map((r, i) => perRecipient.get(r)?.[0]?.includes(`draft ${i < 41 ? 1 : 2}.${i}`))).toEqual(Array(100).fill(true));
      expect(new Set(mails.map((m) => m.idempotencyKey)).size).toBe(100);
    };
    expectOneEmailEach();

    // Attempt 3 drops ten recipients: all 90 asked are ledger hits; the report names the ten.
    expect((await replay(run)).body).toMatchObject({ attempt: 3, replay_check: { safe: true } });
    const kept = RECIPIENTS.map((_, i) => i).filter((i) => !DROPPED.includes(i));
    const third = await inBatches(kept, 10, (i) => email(run, i, 3));
    expect(third.map((a) => a.ledger_hit ?? false)).toEqual(Array(90).fill(true));
    expect(third.map((a) => a.execution_id)).toEqual(kept.map((i) => again[i]?.execution_id));
    expectOneEmailEach();

    const report = await api('GET', intake(`/v1/runs/${run}/divergence`), AGENT_KEY);
    expect(report.status).toBe(200);
    const attempts = report.body['attempts'] as AttemptReport[];
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    const [, two, three] = attempts as [AttemptReport, AttemptReport, AttemptReport];
    expect(ids(two.requested_again)).toEqual(
      first
        .map((a) => a.execution_id)
        .concat(id41)
        .sort(),
    );
    expect(ids(two.new)).toEqual(sent.map((a) => a.execution_id).sort());
    expect([two.not_requested_again, two.still_open]).toEqual([[], []]);
    expect(ids(three.not_requested_again)).toEqual(DROPPED.map((i) => again[i]?.execution_id).sort());
    expect(three.not_requested_again.map((e) => e.tool)).toEqual(Array(10).fill('campaign_email'));
    expect(three.not_requested_again.map((e) => e.attempt).sort()).toEqual([1, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
    expect(ids(three.requested_again)).toEqual(kept.map((i) => again[i]?.execution_id).sort());
    expect([three.new, three.still_open]).toEqual([[], []]);
  });

  it('a run that charged a payment: the replay check answers 409 naming charge_payment; forced by an operator with a reason, audited in PostgreSQL, the answer lists the charge it may repeat', async () => {
    const run = 'billing-2026-11-cus42';
    expect((await api('POST', intake('/v1/runs'), AGENT_KEY, { run_id: run, trigger: 'invoice:2026-11-cus42' })).status).toBe(201);
    const asked = await call('charge_payment', { customer_id: 'cus_42', amount_cents: 1200, card_token: 'tok_12345678' }, run);
    expect(asked.state).toBe('awaiting_approval');
    const chargeId = asked.execution_id;

    // A human grants the per-use approval through the authorization service's approvals API.
    const admin = c.gateway.adminKey;
    const authorization = c.app('authorization').url;
    const pending = await until(
      'the approval request',
      () => api('GET', `${authorization}/v1/admin/approvals?status=pending`, admin),
      (r) => (r.body['approvals'] as { execution_id: string }[] | undefined)?.some((a) => a.execution_id === chargeId) === true,
    );
    const approval = (pending.body['approvals'] as { approval_id: string; execution_id: string }[]).find(
      (a) => a.execution_id === chargeId,
    );
    const granted = await api('POST', `${authorization}/v1/admin/approvals/${approval?.approval_id}/grant`, admin, {
      reason: 'invoice 2026-11 checked',
    });
    expect(granted).toMatchObject({ status: 200, body: { status: 'granted', execution_id: chargeId } });
    await until(
      'the charge to complete',
      () => api('GET', intake(`/v1/executions/${chargeId}`), AGENT_KEY),
      (r) => DONE.includes(String(r.body['state'])),
    );
    expect(c.target.effectCount({ route: 'payments' })).toBe(1);

    const refused = await replay(run);
    expect(refused).toMatchObject({ status: 409, body: { code: 'replay_unsafe' } });
    const unsafe = [
      {
        tool: 'charge_payment',
        executions: [
          expect.objectContaining({
            execution_id: chargeId,
            attempt: 1,
            state: expect.stringMatching(/^completed/),
            reason: 'irreversible_completed',
            why: expect.any(String),
          }),
        ],
      },
    ];
    expect(refused.body['unsafe_tools']).toEqual(unsafe);

    const reason = 'the first charge was refunded by hand; the customer asked for it again';
    expect((await replay(run, AGENT_KEY, { force: { reason } })).status).toBe(403);
    const forced = await replay(run, admin, { force: { reason } });
    expect(forced).toMatchObject({ status: 201, body: { attempt: 2, forced: { by: 'ops:test-admin', reason } } });
    expect((forced.body['forced'] as Record<string, unknown>)['may_repeat']).toEqual(unsafe);

    const audited = await c.db.pool.query(
      `SELECT data, metadata FROM onceport.events WHERE stream_id = $1 AND event_type = 'RunAttemptStarted'`,
      [`run-${run}`],
    );
    expect(audited.rows).toHaveLength(1);
    expect(audited.rows[0].data).toMatchObject({
      runId: run,
      attempt: 2,
      requestedBy: 'ops:test-admin',
      forced: {
        by: 'ops:test-admin',
        reason,
        unsafeCount: 1,
        unsafe: [expect.objectContaining({ executionId: chargeId, tool: 'charge_payment' })],
      },
    });
    expect(audited.rows[0].metadata).toMatchObject({ actor: 'ops:test-admin' });
    // Forcing the replay starts an attempt; it sends nothing by itself.
    expect(c.target.effectCount({ route: 'payments' })).toBe(1);
  });
});
