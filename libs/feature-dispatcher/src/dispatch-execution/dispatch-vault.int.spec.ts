import { DispatchHarness, NO_HEADERS, deadOrigin } from '../../test/dispatch-harness';
import { executionStream } from '@onceport/event-store';
import { recordStatements, recordStreamReads } from '@onceport/event-store/testing';

const LOCKED = 'The vault is locked: deploy key leaked (by ops:alice). Every call is denied until an operator unlocks it.';

/** Issue #5: a locked vault stops every send that has not started yet, and loses none that has. */
describe('dispatch while the vault is locked (real PostgreSQL, real HTTP)', () => {
  let harness: DispatchHarness;

  beforeEach(async () => {
    harness = await DispatchHarness.start();
    harness.target.setBehavior({ honour_idempotency: false });
  });
  afterEach(() => harness.close());

  const denial = async (executionId: string) => {
    const { state } = await harness.commands.load(executionStream(executionId));
    return state.status === 'denied' ? state.denial : state.status;
  };
  const started = async (executionId: string) => (await harness.events(executionId)).filter((e) => e.type === 'DispatchStarted').length;

  it("denies an authorized execution not yet dispatched with vault_locked and the operator's reason: nothing sent", async () => {
    const executionId = await harness.seed();
    await harness.lockVault('ops:alice', 'deploy key leaked');
    const { handler } = harness.dispatcher();

    const summary = await handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);

    expect(summary.attempts).toEqual([{ kind: 'denied', code: 'vault_locked', reason: LOCKED }]);
    expect(await denial(executionId)).toEqual({ code: 'vault_locked', reason: LOCKED, deniedAt: expect.any(String) });
    expect((await harness.events(executionId)).at(-1)).toMatchObject({ type: 'ExecutionDenied', metadata: { actor: 'svc:dispatcher' } });
    expect(await started(executionId)).toBe(0);
    expect(harness.target.effectCount()).toBe(0);
    // A redelivered trigger finds it denied: nothing more is written.
    const before = (await harness.events(executionId)).length;
    expect((await handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS)).attempts).toEqual([]);
    expect(await harness.events(executionId)).toHaveLength(before);
  });

  it('reads the execution and the vault in one round trip, then starts on what it read: no other read before the send', async () => {
    const executionId = await harness.seed();
    const trigger = await harness.wire(executionId, 'ExecutionAuthorized');
    const reads = recordStreamReads(harness.store);

    const summary = await harness.dispatcher().handler.handle(trigger, NO_HEADERS);

    expect(summary.attempts).toEqual([expect.objectContaining({ kind: 'closed', attempt: 1, outcome: 'observed' })]);
    expect(reads).toEqual([[`execution-${executionId}`, 'vault']]);
    expect(harness.target.effectCount()).toBe(1);
  });

  it('sends PostgreSQL three statements for a dispatch: the read, DispatchStarted, and the outcome with its answer bytes', async () => {
    const executionId = await harness.seed();
    const trigger = await harness.wire(executionId, 'ExecutionAuthorized');
    const counted = recordStatements(harness.db.pool);

    const summary = await harness.dispatcher({ pool: counted.pool }).handler.handle(trigger, NO_HEADERS);

    expect(summary.attempts).toEqual([expect.objectContaining({ kind: 'closed', attempt: 1, outcome: 'observed' })]);
    // No transaction around any of them (BEGIN, COMMIT): each is one round trip and one commit.
    expect(counted.statements.filter((s) => !s.startsWith('SELECT pg_notify'))).toEqual(['SELECT e.*', 'INSERT INTO', 'WITH guard']);
    // The answer's bytes were written by that one statement, under the reference the event names.
    const observed = (await harness.events(executionId)).find((e) => e.type === 'OutcomeObserved');
    const ref = observed?.type === 'OutcomeObserved' ? observed.data.result?.ref : undefined;
    expect(observed?.data).toMatchObject({ targetStatus: 201, succeeded: true });
    expect(ref && (await harness.results.get(ref))?.body.length).toBeGreaterThan(0);
  });

  it('dispatches again once the vault is unlocked', async () => {
    await harness.lockVault('ops:alice', 'deploy key leaked');
    await harness.unlockVault('ops:bob', 'key rotated');
    const executionId = await harness.seed();

    await harness.dispatcher().handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);

    expect(await harness.status(executionId)).toBe('completed_result_not_delivered');
    expect(harness.target.effectCount()).toBe(1);
  });

  it('denies the re-dispatch after a not_applied settlement: nothing of it was applied, and no new send goes out', async () => {
    const executionId = await harness.seed();
    const cause = { causationId: 'test' };
    await harness.commands.handle(
      executionStream(executionId),
      (_l, now) => ({ type: 'StartDispatch', data: { dispatcherId: 'gone', leaseMs: 1000 }, metadata: { now } }),
      cause,
    );
    await harness.commands.handle(
      executionStream(executionId),
      (_l, now) => ({ type: 'MarkOutcomeUnknown', data: { attempt: 1, reason: 'lease expired' }, metadata: { now } }),
      cause,
    );
    await harness.commands.handle(
      executionStream(executionId),
      (_l, now) => ({
        type: 'SettleOutcome',
        data: { attempt: 1, settlement: 'not_applied', reason: 'probe: 404', targetStatus: 404, result: null },
        metadata: { now },
      }),
      cause,
    );
    await harness.lockVault('ops:alice', 'deploy key leaked');

    const summary = await harness.dispatcher().handler.handle(await harness.wire(executionId, 'OutcomeSettled'), NO_HEADERS);

    expect(summary.attempts).toEqual([{ kind: 'denied', code: 'vault_locked', reason: LOCKED }]);
    expect(await denial(executionId)).toMatchObject({ code: 'vault_locked', reason: LOCKED });
    expect(await started(executionId)).toBe(1);
    expect(harness.target.effectCount()).toBe(0);
  });

  it('denies a retry whose backoff outlasted the lock: the failure before send says nothing went out', async () => {
    const executionId = await harness.seed();
    // Its long backoff keeps it pausing (not retrying) until it is stopped, however slow the machine.
    const dying = harness.dispatcher({ contracts: harness.contractsAt(await deadOrigin()), config: { retries: 3, retryBackoffMs: 5_000 } });
    const first = dying.handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);
    await waitForEvent(harness, executionId, 'DispatchFailedBeforeSend');
    dying.handler.drain();
    await expect(first).rejects.toMatchObject({ code: 'dispatcher_stopping' });
    await harness.lockVault('ops:alice', 'deploy key leaked');

    // Another replica takes the retry over, with the target reachable again.
    const summary = await harness
      .dispatcher({ config: { retries: 3, retryBackoffMs: 50 } })
      .handler.handle(await harness.wire(executionId, 'DispatchFailedBeforeSend'), NO_HEADERS);

    expect(summary.attempts).toEqual([{ kind: 'denied', code: 'vault_locked', reason: LOCKED }]);
    expect(await denial(executionId)).toMatchObject({ code: 'vault_locked' });
    expect(await started(executionId)).toBe(1);
    expect(harness.target.effectCount()).toBe(0);
  });

  it('leaves an attempt already started alone: it is recorded as usual, never denied', async () => {
    harness.target.setBehavior({ route: 'deployments', delay_ms: 1_500, times: 1 });
    const executionId = await harness.seed();
    const { handler } = harness.dispatcher();
    const inFlight = handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);
    await waitUntil(() => harness.target.effectCount() === 1);
    await harness.lockVault('ops:alice', 'deploy key leaked');
    // A redelivered trigger meanwhile finds it dispatched, and the lock changes nothing about it.
    expect(
      (await harness.dispatcher().handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS)).attempts,
    ).toEqual([]);

    expect((await inFlight).attempts).toEqual([expect.objectContaining({ kind: 'closed', attempt: 1, outcome: 'observed' })]);
    expect(await harness.status(executionId)).toBe('completed_result_not_delivered');
    expect((await harness.events(executionId)).some((e) => e.type === 'ExecutionDenied')).toBe(false);
    expect(harness.target.effectCount()).toBe(1);
  });
});

async function waitForEvent(harness: DispatchHarness, executionId: string, type: string): Promise<void> {
  await waitUntil(async () => (await harness.events(executionId)).some((e) => e.type === type));
}

async function waitUntil(probe: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('not within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
