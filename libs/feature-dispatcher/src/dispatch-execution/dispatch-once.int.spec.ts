import { DispatchHarness, NO_HEADERS } from '../../test/dispatch-harness';

describe('one authorized execution, one send (real PostgreSQL, real HTTP)', () => {
  let harness: DispatchHarness;

  beforeEach(async () => {
    harness = await DispatchHarness.start();
    // The target applies every request it gets: only the dispatcher stands between a redelivery and a second effect.
    harness.target.setBehavior({ honour_idempotency: false });
  });
  afterEach(() => harness.close());

  it('handles the same trigger twice (a redelivery): the second finds the execution dispatched and sends nothing', async () => {
    const executionId = await harness.seed();
    const { handler } = harness.dispatcher();
    const trigger = await harness.wire(executionId, 'ExecutionAuthorized');

    await handler.handle(trigger, NO_HEADERS);
    const again = await handler.handle(trigger, NO_HEADERS);

    expect(again.attempts).toEqual([]);
    expect(harness.target.effectCount()).toBe(1);
    expect((await harness.events(executionId)).filter((e) => e.type === 'DispatchStarted')).toHaveLength(1);
  });

  it('lets exactly one of two dispatchers racing on the same trigger send', async () => {
    harness.target.setBehavior({ route: 'deployments', delay_ms: 200 });
    const executionId = await harness.seed();
    const trigger = await harness.wire(executionId, 'ExecutionAuthorized');
    const replicas = [
      harness.dispatcher({ config: { dispatcherId: 'replica-a' } }),
      harness.dispatcher({ config: { dispatcherId: 'replica-b' } }),
    ];

    const summaries = await Promise.all(replicas.map(({ handler }) => handler.handle(trigger, NO_HEADERS)));

    expect(harness.target.effectCount()).toBe(1);
    const closed = summaries.flatMap((s) => s.attempts).filter((a) => a.kind === 'closed');
    expect(closed).toHaveLength(1);
    expect((await harness.events(executionId)).filter((e) => e.type === 'DispatchStarted')).toHaveLength(1);
    expect(await harness.status(executionId)).toBe('completed_result_not_delivered');
  });

  it('lets exactly one of eight triggers handled at once across four replicas send', async () => {
    const executionId = await harness.seed();
    const trigger = await harness.wire(executionId, 'ExecutionAuthorized');
    const replicas = Array.from({ length: 4 }, (_, i) => harness.dispatcher({ config: { dispatcherId: `replica-${i}` } }));

    await Promise.all([...replicas, ...replicas].map(({ handler }) => handler.handle(trigger, NO_HEADERS)));

    expect(harness.target.effectCount()).toBe(1);
    expect((await harness.events(executionId)).filter((e) => e.type === 'DispatchStarted')).toHaveLength(1);
  });

  it('does nothing for a stale trigger: an execution that is not authorized (yet, or any more)', async () => {
    const accepted = await harness.seed('create_deployment', { authorize: false });
    const { handler } = harness.dispatcher();
    const done = await harness.seed();
    await handler.handle(await harness.wire(done, 'ExecutionAuthorized'), NO_HEADERS);
    harness.target.reset();
    harness.target.setBehavior({ honour_idempotency: false });

    const stale = await handler.handle(await harness.wire(done, 'ExecutionAuthorized'), NO_HEADERS);
    // The consumer subscribes to triggers only; the handler still does not take its word for it.
    const early = await handler.handle(await harness.wire(accepted, 'ExecutionAccepted'), NO_HEADERS);

    expect(stale.attempts).toEqual([]);
    expect(early).toEqual({ trigger: null, attempts: [] });
    expect(harness.target.effectCount()).toBe(0);
    expect(await harness.status(accepted)).toBe('accepted');
  });
});
