import { setTimeout as sleep } from 'node:timers/promises';
import type { ExecutionCommand } from '@onceport/domain';
import { DispatchHarness, NO_HEADERS } from '../../test/dispatch-harness';
import { executionStream } from '@onceport/event-store';

/**
 * A dispatcher whose answer comes back after the reconciler took the execution over: its outcome
 * must not be written over the settlement (or into a newer attempt). It stands down and says so.
 */
describe('a late dispatcher (real PostgreSQL, real HTTP target)', () => {
  let harness: DispatchHarness;

  beforeEach(async () => {
    harness = await DispatchHarness.start();
    // The effect is applied at once, the answer held back: time for the reconciler's three or four
    // writes meanwhile, even on a loaded machine (under the contract's 15 s timeout).
    harness.target.setBehavior({ route: 'deployments', delay_ms: 5_000 });
  });
  afterEach(() => harness.close());

  async function whenDispatched(executionId: string): Promise<void> {
    for (const deadline = Date.now() + 20_000; Date.now() < deadline && (await harness.status(executionId)) !== 'dispatched';)
      await sleep(10);
    expect(await harness.status(executionId)).toBe('dispatched');
  }

  /** What the reconciler appends, fenced like any other writer. */
  async function asReconciler(executionId: string, ...commands: ((now: Date) => ExecutionCommand)[]): Promise<void> {
    for (const command of commands)
      await harness.commands.handle(executionStream(executionId), (_loaded, now) => command(now), {
        causationId: 'test:reconciler',
        actor: 'svc:reconciler:r1',
      });
  }
  const markUnknown = (now: Date): ExecutionCommand => ({
    type: 'MarkOutcomeUnknown',
    metadata: { now },
    data: { attempt: 1, reason: "the dispatcher's lease ran out" },
  });
  const probe =
    (verdict: 'applied' | 'not_applied') =>
    (now: Date): ExecutionCommand => ({
      type: 'RecordProbe',
      metadata: { now },
      data: { attempt: 1, probeNumber: 1, verdict, detail: `probe said ${verdict}` },
    });

  function supersededLog(executionId: string): unknown[] {
    return harness.logLines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((l) => l['message'] === 'dispatch outcome not recorded: the execution moved on' && l['executionId'] === executionId);
  }

  it('the reconciler settled the attempt while the request was in flight: the late outcome is superseded, nothing appended, logged', async () => {
    const executionId = await harness.seed();
    const { handler } = harness.dispatcher();
    const handling = handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);
    await whenDispatched(executionId);
    await asReconciler(executionId, markUnknown, probe('applied'), (now) => ({
      type: 'SettleOutcome',
      metadata: { now },
      data: { attempt: 1, settlement: 'completed', reason: 'probe 1 found the effect applied', targetStatus: 200, result: null },
    }));
    const settledVersion = (await harness.commands.load(executionStream(executionId))).version;

    const summary = await handling;

    expect(summary.attempts).toEqual([expect.objectContaining({ kind: 'superseded', attempt: 1, outcome: 'observed' })]);
    const after = await harness.commands.load(executionStream(executionId));
    expect(after.version).toBe(settledVersion);
    expect(after.events.map((e) => e.type)).not.toContain('OutcomeObserved');
    expect(after.state.status).toBe('completed_result_not_delivered');
    expect(supersededLog(executionId)).toHaveLength(1);
    expect(harness.target.effectCount()).toBe(1);
  });

  it("a second attempt started meanwhile: the first attempt's late outcome is superseded and does not close the second", async () => {
    const executionId = await harness.seed();
    const { handler } = harness.dispatcher();
    const handling = handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);
    await whenDispatched(executionId);
    await asReconciler(executionId, markUnknown, probe('not_applied'), (now) => ({
      type: 'SettleOutcome',
      metadata: { now },
      data: { attempt: 1, settlement: 'not_applied', reason: 'probe 1 found no effect', targetStatus: null, result: null },
    }));
    // Another dispatcher takes the re-dispatch: attempt 2 is open.
    await harness.commands.handle(
      executionStream(executionId),
      (_loaded, now) => ({ type: 'StartDispatch', metadata: { now }, data: { dispatcherId: 'replica-b', leaseMs: 60_000 } }),
      { causationId: 'test:replica-b' },
    );
    const secondStarted = (await harness.commands.load(executionStream(executionId))).version;

    const summary = await handling;

    expect(summary.attempts).toEqual([expect.objectContaining({ kind: 'superseded', attempt: 1 })]);
    const after = await harness.commands.load(executionStream(executionId));
    expect(after.version).toBe(secondStarted);
    expect(after.state.status).toBe('dispatched');
    expect(supersededLog(executionId)).toHaveLength(1);
  });
});
