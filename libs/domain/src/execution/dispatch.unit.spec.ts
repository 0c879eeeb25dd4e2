import { given } from './testing/given-when-then';
import { RESULT, at, events, histories, meta } from './testing/sample-execution';

const start = (minutes: number) =>
  ({ type: 'StartDispatch', data: { dispatcherId: 'dispatcher-0', leaseMs: 30_000 }, metadata: meta(minutes) }) as const;
const failedBeforeSend = [...histories.dispatched, events.failedBeforeSend()];

describe('StartDispatch', () => {
  it('starts attempt 1 from authorized, with a lease, and remembers the first dispatch time', () => {
    const state = given(histories.authorized).when(start(0.2)).then([events.dispatchStarted()]);
    expect(state).toMatchObject({
      status: 'dispatched',
      lease: { attempt: 1, leaseExpiresAt: at(0.7) },
      progress: { attempt: 1, firstDispatchedAt: at(0.2) },
    });
  });

  it('uses attempt + 1 after a retryable failure before send, keeping the first dispatch time', () => {
    const state = given(failedBeforeSend)
      .when(start(1))
      .then([events.dispatchStarted({ attempt: 2, startedAt: at(1), leaseExpiresAt: at(1.5) })]);
    expect(state).toMatchObject({ progress: { attempt: 2, firstDispatchedAt: at(0.2) } });
  });

  it('is never a no-op: a second start while in flight is refused (no blind re-send)', () => {
    const error = given(histories.dispatched).when(start(0.3)).thenRefuses('illegal_transition');
    expect(error.message).toContain('attempt 1 is in flight');
  });

  it('refuses before authorization and a non-positive lease', () => {
    given(histories.accepted).when(start(0.2)).thenRefuses('illegal_transition');
    given(histories.authorized)
      .when({ type: 'StartDispatch', data: { dispatcherId: 'd', leaseMs: 0 }, metadata: meta(0.2) })
      .thenRefuses('invalid_command');
  });
});

describe('FailDispatchBeforeSend', () => {
  const fail = (retryable: boolean, attempt = 1) =>
    ({ type: 'FailDispatchBeforeSend', data: { attempt, reason: 'connect ECONNREFUSED', retryable }, metadata: meta(0.3) }) as const;

  it('returns to authorized when retryable (nothing reached the target)', () => {
    const state = given(histories.dispatched).when(fail(true)).then([events.failedBeforeSend()]);
    expect(state).toMatchObject({ status: 'authorized', progress: { attempt: 1, authorization: { basis: 'policy' } } });
  });

  it('fails when not retryable', () => {
    const state = given(histories.dispatched)
      .when(fail(false))
      .then([events.failedBeforeSend({ retryable: false })]);
    expect(state).toMatchObject({ status: 'failed', failure: { reason: 'connect ECONNREFUSED' } });
  });

  it('is a no-op when the same attempt already failed before send, even during the next attempt', () => {
    given(failedBeforeSend).when(fail(true)).thenNothing();
    given([...failedBeforeSend, events.dispatchStarted({ attempt: 2 })])
      .when(fail(true))
      .thenNothing();
  });

  it('refuses a report about an older attempt', () => {
    const second = [...failedBeforeSend, events.dispatchStarted({ attempt: 2 }), events.observed({ attempt: 2 })];
    given(second).when(fail(true)).thenRefuses('stale_attempt');
  });

  it('refuses an attempt that never started', () => {
    given(histories.dispatched).when(fail(true, 2)).thenRefuses('illegal_transition');
  });
});

describe('ObserveOutcome', () => {
  const observe = (targetStatus: number, succeeded: boolean, minutes = 0.3) =>
    ({ type: 'ObserveOutcome', data: { attempt: 1, targetStatus, succeeded, result: RESULT }, metadata: meta(minutes) }) as const;

  it('a success is completed but not delivered: observed is not delivered', () => {
    const state = given(histories.dispatched).when(observe(201, true)).then([events.observed()]);
    expect(state).toMatchObject({
      status: 'completed_result_not_delivered',
      progress: { lastTargetStatus: 201, lastResult: RESULT, delivered: false },
    });
  });

  it('a refusal by the target fails the execution and keeps the result', () => {
    const state = given(histories.dispatched)
      .when(observe(422, false))
      .then([events.observed({ targetStatus: 422, succeeded: false })]);
    expect(state).toMatchObject({
      status: 'failed',
      progress: { lastTargetStatus: 422, lastResult: RESULT },
      failure: { reason: 'The target answered 422.' },
    });
  });

  it('takes a late observation over an unknown outcome for the same attempt', () => {
    const state = given([...histories.dispatched_unknown, events.probed()])
      .when(observe(201, true, 1.5))
      .then([events.observed({ observedAt: at(1.5) })]);
    expect(state.status).toBe('completed_result_not_delivered');
  });

  it('is a no-op for the same observation, refused for a conflicting one', () => {
    given(histories.completed_result_not_delivered).when(observe(201, true)).thenNothing();
    given(histories.completed_result_not_delivered).when(observe(500, false)).thenRefuses('outcome_already_known');
  });

  it('refuses once the outcome was settled', () => {
    given(histories.needs_review).when(observe(201, true)).thenRefuses('outcome_already_known');
  });
});

describe('MarkOutcomeUnknown', () => {
  const unknown = (attempt = 1) =>
    ({ type: 'MarkOutcomeUnknown', data: { attempt, reason: 'socket reset after the body was sent' }, metadata: meta(0.5) }) as const;

  it('moves a dispatched attempt to unknown', () => {
    const state = given(histories.dispatched).when(unknown()).then([events.unknown()]);
    expect(state).toMatchObject({ status: 'dispatched_unknown', unknown: { attempt: 1, probes: 0, lastVerdict: null } });
  });

  it('carries the task an MCP upstream answered with, for the reconciler to poll', () => {
    const withTask = { ...unknown(), data: { ...unknown().data, upstreamTaskId: 'tsk_42' } };
    const state = given(histories.dispatched)
      .when(withTask)
      .then([events.unknown({ upstreamTaskId: 'tsk_42' })]);
    expect(state).toMatchObject({ status: 'dispatched_unknown', unknown: { upstreamTaskId: 'tsk_42' } });
    expect(given(histories.dispatched).when(unknown()).then([events.unknown()])).toMatchObject({ unknown: { upstreamTaskId: null } });
  });

  it('is a no-op when already unknown for that attempt', () => {
    given(histories.dispatched_unknown).when(unknown()).thenNothing();
  });

  it('never overwrites an observed outcome (lease timeout racing the dispatcher)', () => {
    given(histories.completed_result_not_delivered).when(unknown()).thenRefuses('outcome_already_known');
  });

  it('is only possible after dispatch', () => {
    given(histories.authorized).when(unknown()).thenRefuses('illegal_transition');
    given(failedBeforeSend).when(unknown()).thenRefuses('outcome_already_known');
  });
});
