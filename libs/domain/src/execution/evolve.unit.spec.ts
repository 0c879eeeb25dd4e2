import { executionDecider } from './execution-decider';
import { evolve, foldEvents } from './evolve';
import { initialState } from './execution-state';
import { tryDecide } from './decide';
import { APPROVAL_ID, FINGERPRINT, at, events, histories, meta } from './testing/sample-execution';

describe('evolve', () => {
  it('starts from none', () => {
    expect(initialState()).toEqual({ status: 'none' });
    expect(foldEvents([])).toEqual({ status: 'none' });
  });

  it('ignores events before ExecutionAccepted and a second ExecutionAccepted (recorded facts are never refused)', () => {
    expect(evolve(initialState(), events.authorized())).toEqual({ status: 'none' });
    const accepted = foldEvents(histories.accepted);
    expect(evolve(accepted, events.accepted({ tool: 'other' }))).toBe(accepted);
  });

  it('keeps the facts of acceptance through every state', () => {
    const state = foldEvents(histories.reverted);
    expect(state.status !== 'none' && state.facts).toMatchObject({
      fingerprint: FINGERPRINT,
      correlationWindowEndsAt: at(15),
      effectClass: 'idempotent',
    });
  });

  it('folds an approval-based authorization with the approval as evidence', () => {
    const state = foldEvents([
      events.accepted({ approval: 'per_use' }),
      events.approvalRequested(),
      events.approvalGranted(),
      events.authorized({ basis: 'approval', approvalId: APPROVAL_ID, authorizedAt: at(2) }),
    ]);
    expect(state).toMatchObject({
      status: 'authorized',
      progress: { approvalId: APPROVAL_ID, authorization: { basis: 'approval', authorizedAt: at(2) } },
    });
  });

  it('counts attached retries and tracks probes of the open attempt', () => {
    const state = foldEvents([
      ...histories.dispatched_unknown,
      events.retryAttached(),
      events.probed(),
      events.retryAttached(),
      events.probed({ probeNumber: 2, verdict: 'applied' }),
    ]);
    expect(state).toMatchObject({
      status: 'dispatched_unknown',
      progress: { retriesAttached: 2 },
      unknown: { probes: 2, lastVerdict: 'applied' },
    });
  });

  it('a settlement without a result keeps the last one known', () => {
    const state = foldEvents([...histories.dispatched_unknown, events.settled({ settlement: 'completed' })]);
    expect(state).toMatchObject({
      progress: { lastResult: null, lastTargetStatus: null, lastAttemptEnd: { attempt: 1, how: 'settled', settlement: 'completed' } },
    });
  });
});

describe('executionDecider', () => {
  it('bundles decide, evolve and initialState for command handlers', () => {
    const state = histories.authorized.reduce(executionDecider.evolve, executionDecider.initialState());
    const produced = executionDecider.decide(
      { type: 'StartDispatch', data: { dispatcherId: 'dispatcher-0', leaseMs: 30_000 }, metadata: meta(0.2) },
      state,
    );
    expect(produced).toEqual([events.dispatchStarted()]);
  });

  it('tryDecide returns refusals as values', () => {
    const result = tryDecide(
      { type: 'StartDispatch', data: { dispatcherId: 'd', leaseMs: 1 }, metadata: meta(1) },
      foldEvents(histories.completed),
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'illegal_transition', command: 'StartDispatch', status: 'completed' } });
    expect(tryDecide({ type: 'ExpireCorrelation', data: {}, metadata: meta(30) }, foldEvents(histories.accepted))).toEqual({
      ok: true,
      events: [events.expired({ expiredAt: at(30) })],
    });
  });
});
