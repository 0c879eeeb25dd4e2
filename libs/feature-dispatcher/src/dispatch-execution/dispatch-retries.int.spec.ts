import { DispatchHarness, NO_HEADERS, deadOrigin } from '../../test/dispatch-harness';
import { executionStream } from '@onceport/event-store';

describe('dispatch retries (real PostgreSQL, real HTTP)', () => {
  let harness: DispatchHarness;

  beforeEach(async () => {
    harness = await DispatchHarness.start();
    harness.target.setBehavior({ honour_idempotency: false });
  });
  afterEach(() => harness.close());

  it('tries a refused connection again with growing pauses, then records the last failure as final: failed, nothing reached anyone', async () => {
    const executionId = await harness.seed();
    const { handler } = harness.dispatcher({
      contracts: harness.contractsAt(await deadOrigin()),
      config: { retries: 3, retryBackoffMs: 50 },
    });

    const summary = await handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);

    expect(summary.attempts.map((a) => (a.kind === 'closed' ? [a.attempt, a.outcome, a.retryable] : a.kind))).toEqual([
      [1, 'failed_before_send', true],
      [2, 'failed_before_send', true],
      [3, 'failed_before_send', true],
      [4, 'failed_before_send', false],
    ]);
    expect(await harness.status(executionId)).toBe('failed');
    const events = await harness.events(executionId);
    const failures = events.flatMap((e) => (e.type === 'DispatchFailedBeforeSend' ? [e.data] : []));
    expect(failures.map((f) => f.retryable)).toEqual([true, true, true, false]);
    expect(failures.every((f) => f.reason.startsWith('connect_refused'))).toBe(true);
    expect(failures[3]?.reason).toMatch(/gave up after 4 tries/);
    // The backoff doubles: 50, 100, 200 ms between a failure and the next start.
    const starts = events.flatMap((e) => (e.type === 'DispatchStarted' ? [Date.parse(e.data.startedAt)] : []));
    const gaps = failures.slice(0, 3).map((f, i) => (starts[i + 1] ?? 0) - Date.parse(f.failedAt));
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(50 * 2 ** i));
    // Each retry is caused by the failure before it.
    const retryStarts = events.filter((e) => e.type === 'DispatchStarted').slice(1);
    const failureIds = events.filter((e) => e.type === 'DispatchFailedBeforeSend').map((e) => e.metadata.eventId);
    expect(retryStarts.map((e) => e.metadata.causationId)).toEqual(failureIds.slice(0, 3));
  });

  it('records a refused connection as final at once when no retries are configured', async () => {
    const executionId = await harness.seed();
    const { handler } = harness.dispatcher({ contracts: harness.contractsAt(await deadOrigin()), config: { retries: 0 } });

    await handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);

    expect(await harness.status(executionId)).toBe('failed');
    expect((await harness.events(executionId)).filter((e) => e.type === 'DispatchStarted')).toHaveLength(1);
  });

  it('takes over a retry from a retryable failure another dispatcher recorded (it died during its backoff)', async () => {
    const executionId = await harness.seed();
    // Its long backoff keeps it pausing (not retrying) until it is stopped, however slow the machine.
    const dying = harness.dispatcher({ contracts: harness.contractsAt(await deadOrigin()), config: { retries: 3, retryBackoffMs: 5_000 } });
    // The first dispatcher records its failure, then stops before it can try again.
    const first = dying.handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);
    await waitForEvent(harness, executionId, 'DispatchFailedBeforeSend');
    dying.handler.drain();
    await expect(first).rejects.toMatchObject({ code: 'dispatcher_stopping' });
    expect(await harness.status(executionId)).toBe('authorized');

    const { handler } = harness.dispatcher({ config: { retries: 3, retryBackoffMs: 200 } });
    const summary = await handler.handle(await harness.wire(executionId, 'DispatchFailedBeforeSend'), NO_HEADERS);

    expect(summary.attempts).toEqual([expect.objectContaining({ kind: 'closed', attempt: 2, outcome: 'observed' })]);
    expect(await harness.status(executionId)).toBe('completed_result_not_delivered');
    expect(harness.target.effectCount()).toBe(1);
    // The backoff the stream says is owed was honoured by the replica that took over.
    const events = await harness.events(executionId);
    const failure = events.find((e) => e.type === 'DispatchFailedBeforeSend');
    const retry = events.filter((e) => e.type === 'DispatchStarted')[1];
    if (failure?.type !== 'DispatchFailedBeforeSend' || retry?.type !== 'DispatchStarted')
      throw new Error('expected a failure and a retry');
    expect(Date.parse(retry.data.startedAt) - Date.parse(failure.data.failedAt)).toBeGreaterThanOrEqual(200);
  });

  it('dispatches again after the reconciler settled an unknown outcome as not_applied, with the same execution id', async () => {
    harness.target.setBehavior({ route: 'deployments', fail_status: 503, times: 1 });
    const executionId = await harness.seed();
    // Attempt 1 as the reconciler will have left it: unknown, probed, not applied.
    await harness.commands.handle(
      executionStream(executionId),
      (_l, now) => ({ type: 'StartDispatch', data: { dispatcherId: 'gone', leaseMs: 1000 }, metadata: { now } }),
      { causationId: 'test' },
    );
    await harness.commands.handle(
      executionStream(executionId),
      (_l, now) => ({ type: 'MarkOutcomeUnknown', data: { attempt: 1, reason: 'lease expired' }, metadata: { now } }),
      { causationId: 'test' },
    );
    await harness.commands.handle(
      executionStream(executionId),
      (_l, now) => ({
        type: 'SettleOutcome',
        data: { attempt: 1, settlement: 'not_applied', reason: 'probe: 404', targetStatus: 404, result: null },
        metadata: { now },
      }),
      { causationId: 'test' },
    );
    const { handler } = harness.dispatcher();

    const summary = await handler.handle(await harness.wire(executionId, 'OutcomeSettled'), NO_HEADERS);

    expect(summary.attempts).toEqual([expect.objectContaining({ kind: 'closed', attempt: 2, outcome: 'observed' })]);
    expect((await harness.events(executionId)).at(-1)).toMatchObject({
      type: 'OutcomeObserved',
      data: { attempt: 2, targetStatus: 503, succeeded: false },
    });
  });

  it('ignores settlements and failures that order no dispatch', async () => {
    const executionId = await harness.seed();
    const { handler } = harness.dispatcher({ contracts: harness.contractsAt(await deadOrigin()), config: { retries: 0 } });
    await handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);
    const before = await harness.events(executionId);

    const summary = await handler.handle(await harness.wire(executionId, 'DispatchFailedBeforeSend'), NO_HEADERS);

    expect(summary).toEqual({ trigger: null, attempts: [] });
    expect(await harness.events(executionId)).toHaveLength(before.length);
  });
});

async function waitForEvent(harness: DispatchHarness, executionId: string, type: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await harness.events(executionId)).some((e) => e.type === type)) {
    if (Date.now() > deadline) throw new Error(`no ${type} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
