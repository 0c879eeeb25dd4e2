import { randomUUID } from 'node:crypto';
import { executionStreamId } from '@onceport/contracts';
import { PostgresEventStore } from '@onceport/event-store';
import { type Gateway, eventually, startGateway } from '../testing/gateway-processes';
import { runOnceport } from '../testing/run-cli-in-process';

interface Entry {
  subscriber: string;
  event_id: string;
  status: string;
  attempts: number;
  last_error: string;
  closed_by: string | null;
  close_reason: string | null;
}

const PROJECTION = 'projection:execution-matches';

/**
 * Issue #12: one event the executions projection cannot apply, appended straight into the real
 * store as a buggy or newer writer would (an ExecutionAccepted whose data no schema of ours
 * reads). Before the quarantine it stopped settlement, the approvals list and approval expiry for
 * good; now it is quarantined, and everything else keeps working, with the four services running
 * as processes over JetStream.
 */
describe('a poison event in the store is quarantined and stops nothing else', () => {
  let gateway: Gateway;
  let poison: string;

  beforeAll(async () => {
    gateway = await startGateway({
      ONCEPORT_QUARANTINE_AFTER_ATTEMPTS: '3',
      ONCEPORT_APPROVAL_TTL: '10000',
      ONCEPORT_APPROVAL_SWEEP_MS: '500',
      ONCEPORT_RECONCILE_SWEEP_MS: '500',
    });
    poison = randomUUID();
    const executionId = 'exe_01J4K8J7DX7VQQQQQQQQQQQQQQ';
    await new PostgresEventStore(gateway.db.pool).append(
      executionStreamId(executionId),
      [
        {
          eventId: poison,
          type: 'ExecutionAccepted',
          schemaVersion: 1,
          data: { executionId, written_by: 'a writer of another version' },
          metadata: { correlationId: 'poison', causationId: 'poison' },
        },
      ],
      { expectedVersion: 'no_stream' },
    );
  }, 180_000);
  afterAll(() => gateway?.stop());

  const admin = (path: string, init: RequestInit = {}, key = gateway.fixture.adminKey) =>
    fetch(`${gateway.authorization.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
    });
  const entryOf = async (status = 'all'): Promise<Entry | undefined> => {
    const answer = (await (await admin(`/v1/admin/quarantine?status=${status}&subscriber=${PROJECTION}`)).json()) as { entries: Entry[] };
    return answer.entries.find((e) => e.event_id === poison);
  };
  const eventsOf = async (executionId: string): Promise<{ type: string; data: Record<string, unknown> }[]> =>
    (
      await gateway.db.pool.query('SELECT event_type AS type, data FROM onceport.events WHERE stream_id = $1 ORDER BY stream_version', [
        executionStreamId(executionId),
      ])
    ).rows;
  const onceport = (...argv: string[]) => runOnceport(argv, gateway.cliEnv);

  it('is quarantined by the projection and listed by the admin API', async () => {
    const entry = await eventually(
      () => entryOf('open'),
      (e) => e?.status === 'quarantined',
      60_000,
    );
    expect(entry).toMatchObject({ subscriber: PROJECTION, status: 'quarantined', attempts: 3 });
    expect(entry?.last_error.length).toBeGreaterThan(0);
  });

  it('later events still project; a call whose answer was dropped is settled; the approvals list answers and a pending approval expires', async () => {
    gateway.target.setBehavior({ route: 'deployments', accept_then_drop: true, times: 1 });
    const deploy = await gateway.agentCall('create_deployment', {
      project: 'after-poison',
      environment: 'staging',
      version: '1.4.2',
      notes: 'n',
    });
    expect(deploy.status).toBeLessThan(300);
    const deployment = deploy.body['execution_id'] as string;
    const charge = await gateway.agentCall('charge_payment', {
      customer_id: 'cus_poison',
      amount_cents: 100,
      card_token: 'tok_visa_4242',
      description: 'after poison',
    });
    expect(charge.status).toBeLessThan(300);
    const charged = charge.body['execution_id'] as string;

    const settled = await eventually(
      () => eventsOf(deployment),
      (events) => events.some((e) => e.type === 'OutcomeSettled'),
      90_000,
    );
    expect(settled.map((e) => e.type)).toEqual(expect.arrayContaining(['OutcomeUnknown', 'OutcomeSettled']));

    const approvals = await admin('/v1/admin/approvals?status=all');
    expect(approvals.status).toBe(200);
    expect(((await approvals.json()) as { approvals: { execution_id: string }[] }).approvals.map((a) => a.execution_id)).toContain(charged);
    const denied = await eventually(
      () => eventsOf(charged),
      (events) => events.some((e) => e.type === 'ExecutionDenied'),
      60_000,
    );
    expect(denied.find((e) => e.type === 'ExecutionDenied')?.data).toMatchObject({ code: 'approval_expired' });

    // The read model followed both executions past the quarantined event.
    const rows = await eventually(
      async () =>
        (
          await gateway.db.pool.query<{ execution_id: string; status: string }>(
            'SELECT execution_id, status FROM onceport.execution_matches WHERE execution_id = ANY($1)',
            [[deployment, charged]],
          )
        ).rows,
      (r) =>
        r.some((row) => row.execution_id === charged && row.status === 'denied') &&
        r.some((row) => row.execution_id === deployment && row.status.startsWith('completed')),
      30_000,
    );
    expect(rows).toHaveLength(2);
  });

  it('bounds and checks every input of the API', async () => {
    expect((await admin('/v1/admin/quarantine', {}, 'adm_wrong')).status).toBe(401);
    expect((await admin('/v1/admin/quarantine?limit=0')).status).toBe(400);
    expect((await admin('/v1/admin/quarantine?limit=99999')).status).toBe(400);
    expect((await admin('/v1/admin/quarantine?status=everything')).status).toBe(400);
    expect((await admin(`/v1/admin/quarantine?subscriber=${'x'.repeat(300)}`)).status).toBe(400);
    expect((await admin(`/v1/admin/quarantine/${PROJECTION}/not-a-uuid/retry`, { method: 'POST' })).status).toBe(400);
    const unknown = await admin(`/v1/admin/quarantine/${PROJECTION}/${randomUUID()}/retry`, { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect((await admin(`/v1/admin/quarantine/${PROJECTION}/${poison}/release`, { method: 'POST', body: '{}' })).status).toBe(400); // no reason
  });

  it('the CLI lists it; a retry of the still-broken event keeps it quarantined; release closes it with who and why', async () => {
    const listed = await onceport('quarantine', 'list', '--json');
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { entries: Entry[] }).entries).toContainEqual(
      expect.objectContaining({ event_id: poison, subscriber: PROJECTION, status: 'quarantined' }),
    );
    const human = await onceport('quarantine', 'list');
    expect(human.stdout).toMatch(new RegExp(`^${poison}  quarantined  ${PROJECTION}$`, 'm'));
    expect(human.stdout).toMatch(/event +ExecutionAccepted in execution-exe_01J4K8J7DX7VQQQQQQQQQQQQQQ/);

    const before = (await entryOf())!.attempts;
    expect(await onceport('quarantine', 'retry', poison)).toMatchObject({ code: 2, stderr: expect.stringContaining('--subscriber') });
    expect(await onceport('quarantine', 'retry', poison, '--subscriber', PROJECTION)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining(`retry of ${poison} requested`),
    });
    const retried = await eventually(
      () => entryOf(),
      (e) => e?.status === 'quarantined' && e.attempts > before,
      60_000,
    );
    expect(retried).toMatchObject({ status: 'quarantined' });

    expect(await onceport('quarantine', 'release', poison, '--subscriber', PROJECTION)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--reason'),
    });
    const released = await onceport(
      'quarantine',
      'release',
      poison,
      '--subscriber',
      PROJECTION,
      '--reason',
      'written by a broken writer; nothing to apply',
      '--json',
    );
    expect(released.code).toBe(0);
    expect(JSON.parse(released.stdout)).toMatchObject({
      status: 'released',
      closed_by: 'ops:test-admin',
      close_reason: 'written by a broken writer; nothing to apply',
    });
    expect(await onceport('quarantine', 'release', poison, '--subscriber', PROJECTION, '--reason', 'again')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('409'),
    });
    expect(await entryOf('open')).toBeUndefined();
  });

  it('serves GET /metrics on every service: the quarantine counter, the open-entries gauge and process metrics', async () => {
    const texts = await Promise.all(
      [gateway.authorization, gateway.reconciler, gateway.intake].map(async (app) => (await fetch(`${app.url}/metrics`)).text()),
    );
    for (const text of texts) {
      expect(text).toMatch(/^# TYPE onceport_events_quarantined_total counter$/m);
      expect(text).toMatch(/^# TYPE onceport_quarantine_open_entries gauge$/m);
      expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    }
    const quarantinedBy = texts
      .flatMap((text) => [...text.matchAll(/^onceport_events_quarantined_total\{subscriber="projection:execution-matches"\} (\d+)$/gm)])
      .reduce((sum, match) => sum + Number(match[1]), 0);
    expect(quarantinedBy).toBeGreaterThanOrEqual(1);
  });
});
