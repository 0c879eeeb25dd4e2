import { type RunReference } from '@onceport/contracts';
import { executionStream, runStream } from '@onceport/event-store';
import { waitFor } from '@onceport/messaging/testing';
import { type ServicePorts } from '@onceport/service-kit';
import { type Call, KEYS, seedAccepted } from '../testing/authorization-fixtures';
import { type AuthorizationService, startAuthorizationService } from '../testing/authorization-service';

/**
 * Campaign approval as the service serves it (real PostgreSQL, in-process delivery, HTTP): the
 * approver sees a run's waiting per-use calls with their records, grants up to a count at once,
 * the waiting ones and later ones are approved from the grant (each naming it and its use), and
 * once the count is used up a call waits for a human of its own. Other runs are not covered.
 */
describe('admin API: campaign approval (real PostgreSQL, HTTP)', () => {
  let service: AuthorizationService;
  let runtime: ServicePorts;
  let base: string;

  beforeAll(async () => {
    service = await startAuthorizationService();
    runtime = service.runtime;
    base = `${service.url}/v1/admin`;
  });
  afterAll(() => service?.close());

  const call = async (method: string, path: string, body?: unknown, key: string = KEYS.alice) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  async function openRun(runId: string, trigger: string): Promise<RunReference> {
    await runtime.commands.handle(
      runStream(runId),
      (_l, now) => ({ type: 'OpenRun', data: { runId, actor: 'agent:pay-bot', trigger }, metadata: { now } }),
      { causationId: 'test:runs' },
    );
    return { runId, attempt: 1, trigger };
  }

  /** A charge of the run, decided by the service's own consumer; answers its execution id once decided. */
  async function charge(run: RunReference, customer: string): Promise<string> {
    const c: Call = { actor: 'agent:pay-bot', tool: 'charge_payment', run, arguments: { customer_id: customer } };
    const event = await seedAccepted(runtime.commands, runtime.store, c);
    runtime.delivery.nudge();
    const id = event.stream.id.replace('execution-', '');
    await waitFor(
      async () => !['accepted'].includes((await runtime.commands.load(executionStream(id))).state.status),
      15_000,
      'a decision',
    );
    return id;
  }
  const statusOf = async (id: string) => (await runtime.commands.load(executionStream(id))).state.status;

  it('shows the waiting calls with their records, grants up to the count, and approves later calls from the grant until it is used up', async () => {
    const run = await openRun('refunds-1', 'ticket:FIN-31');
    const other = await openRun('refunds-2', 'ticket:FIN-32');
    const waiting = [await charge(run, 'cus_1'), await charge(run, 'cus_2'), await charge(run, 'cus_3')];
    const elsewhere = await charge(other, 'cus_9');
    expect(await Promise.all([...waiting, elsewhere].map(statusOf))).toEqual(Array(4).fill('awaiting_approval'));

    const before = await call('GET', '/runs/refunds-1/campaigns/charge_payment');
    expect(before).toMatchObject({ status: 200, body: { granted: 0, used: 0, remaining: 0 } });
    const shown = before.body['waiting'] as { execution_id: string; record: { arguments: Record<string, string> }; run: { id: string } }[];
    expect(shown.map((view) => view.execution_id).sort()).toEqual([...waiting].sort());
    expect(shown.map((view) => view.record.arguments['customer_id']).sort()).toEqual(['cus_1', 'cus_2', 'cus_3']);

    const granted = await call('POST', '/runs/refunds-1/campaigns/charge_payment/grant', {
      count: 5,
      reason: 'Refund campaign FIN-31, 5 customers',
    });
    expect(granted).toMatchObject({ status: 200, body: { granted: 5, used: 3, remaining: 2, waiting: [] } });
    expect(await Promise.all(waiting.map(statusOf))).toEqual(Array(3).fill('authorized'));
    expect(await statusOf(elsewhere)).toBe('awaiting_approval');
    const evidence = (await runtime.commands.load(executionStream(waiting[0]!))).events.find((e) => e.type === 'ApprovalGranted');
    expect(evidence?.data).toMatchObject({
      approver: 'ops:alice',
      reason: expect.stringMatching(/^Campaign grant for run refunds-1: use \d of 5\. Refund campaign FIN-31/),
    });

    // Two more uses are left: the next two calls are approved as they arrive, the third waits for a human.
    const later = [await charge(run, 'cus_4'), await charge(run, 'cus_5'), await charge(run, 'cus_6')];
    expect(await Promise.all(later.map(statusOf))).toEqual(['authorized', 'authorized', 'awaiting_approval']);
    expect((await call('GET', '/runs/refunds-1/campaigns/charge_payment')).body).toMatchObject({
      used: 5,
      remaining: 0,
      waiting: [{ execution_id: later[2] }],
    });
  });

  it('refuses what it cannot grant: no count, a tool without per-use approval, an unknown run, an agent key', async () => {
    await openRun('refunds-3', 'ticket:FIN-33');
    expect((await call('POST', '/runs/refunds-3/campaigns/charge_payment/grant', { count: 0, reason: 'x' })).body).toMatchObject({
      code: 'invalid_count',
    });
    expect((await call('POST', '/runs/refunds-3/campaigns/charge_payment/grant', { count: 2 })).body).toMatchObject({
      code: 'reason_required',
    });
    expect(await call('GET', '/runs/refunds-3/campaigns/create_deployment')).toMatchObject({ status: 409, body: { code: 'not_per_use' } });
    expect(await call('GET', '/runs/no-such-run/campaigns/charge_payment')).toMatchObject({ status: 404, body: { code: 'run_not_found' } });
    expect((await call('GET', '/runs/refunds-3/campaigns/charge_payment', undefined, KEYS.payBot)).status).toBe(401);
  });
});
