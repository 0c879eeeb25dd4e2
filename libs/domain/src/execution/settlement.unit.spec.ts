import { type Settlement } from '@onceport/contracts';
import { given } from './testing/given-when-then';
import { RESULT, at, events, histories, meta } from './testing/sample-execution';

const irreversibleUnknown = [
  events.accepted({ effectClass: 'irreversible' }),
  events.authorized(),
  events.dispatchStarted(),
  events.unknown(),
];

describe('RecordProbe', () => {
  const probe = (probeNumber: number, verdict: 'applied' | 'not_applied' | 'cant_tell' = 'cant_tell', minutes = 1) =>
    ({
      type: 'RecordProbe',
      data: { attempt: 1, probeNumber, verdict, detail: 'GET /v1/invoices?key=… timed out' },
      metadata: meta(minutes),
    }) as const;

  it('records probes in order on an unknown outcome', () => {
    const state = given(histories.dispatched_unknown).when(probe(1)).then([events.probed()]);
    expect(state).toMatchObject({ status: 'dispatched_unknown', unknown: { probes: 1, lastVerdict: 'cant_tell' } });
    given([...histories.dispatched_unknown, events.probed()])
      .when(probe(2, 'applied', 2))
      .then([events.probed({ probeNumber: 2, verdict: 'applied', probedAt: at(2) })]);
  });

  it('is a no-op for a probe number already recorded, refused when it skips ahead', () => {
    given([...histories.dispatched_unknown, events.probed()])
      .when(probe(1))
      .thenNothing();
    given(histories.dispatched_unknown).when(probe(2)).thenRefuses('probe_out_of_order');
  });

  it('refuses probing anything but an unknown outcome', () => {
    given(histories.dispatched).when(probe(1)).thenRefuses('illegal_transition');
    given(histories.completed).when(probe(1)).thenRefuses('outcome_already_known');
  });
});

describe('SettleOutcome', () => {
  const settle = (settlement: Settlement, minutes = 2, result: typeof RESULT | null = null) =>
    ({
      type: 'SettleOutcome',
      data: { attempt: 1, settlement, reason: 'Probes could not tell.', targetStatus: result === null ? null : 201, result },
      metadata: meta(minutes),
    }) as const;

  it('completed → completed_result_not_delivered, keeping what the probe found', () => {
    const state = given(histories.dispatched_unknown)
      .when(settle('completed', 2, RESULT))
      .then([events.settled({ settlement: 'completed', targetStatus: 201, result: RESULT })]);
    expect(state).toMatchObject({
      status: 'completed_result_not_delivered',
      progress: { lastResult: RESULT, lastTargetStatus: 201, delivered: false },
    });
  });

  it('not_applied → authorized for an idempotent effect (same execution id, same idempotency key)', () => {
    const state = given(histories.dispatched_unknown)
      .when(settle('not_applied'))
      .then([events.settled({ settlement: 'not_applied' })]);
    expect(state).toMatchObject({ status: 'authorized', progress: { attempt: 1 } });
    given([...histories.dispatched_unknown, events.settled({ settlement: 'not_applied' })])
      .when({ type: 'StartDispatch', data: { dispatcherId: 'dispatcher-1', leaseMs: 30_000 }, metadata: meta(3) })
      .then([events.dispatchStarted({ attempt: 2, dispatcherId: 'dispatcher-1', startedAt: at(3), leaseExpiresAt: at(3.5) })]);
  });

  it('not_applied of an irreversible effect needs a probe that said not_applied', () => {
    given(irreversibleUnknown).when(settle('not_applied')).thenRefuses('unsafe_redispatch');
    given([...irreversibleUnknown, events.probed({ verdict: 'cant_tell' })])
      .when(settle('not_applied'))
      .thenRefuses('unsafe_redispatch');
    given([...irreversibleUnknown, events.probed({ verdict: 'not_applied' })])
      .when(settle('not_applied'))
      .then([events.settled({ settlement: 'not_applied' })]);
  });

  it('needs_review → needs_review; failed → failed', () => {
    expect(given(irreversibleUnknown).when(settle('needs_review')).then([events.settled()])).toMatchObject({
      status: 'needs_review',
      review: { reason: 'Probes could not tell.', since: at(2) },
    });
    expect(
      given(irreversibleUnknown)
        .when(settle('failed'))
        .then([events.settled({ settlement: 'failed' })]),
    ).toMatchObject({ status: 'failed', failure: { reason: 'Probes could not tell.' } });
  });

  it('is a no-op for the same settlement, refused for a different one', () => {
    given(histories.needs_review).when(settle('needs_review', 3)).thenNothing();
    given(histories.needs_review).when(settle('completed', 3)).thenRefuses('outcome_already_known');
  });

  it('only settles an unknown outcome (mark it unknown first)', () => {
    given(histories.dispatched).when(settle('completed')).thenRefuses('illegal_transition');
  });
});

describe('ResolveReview', () => {
  const resolve = (resolution: 'applied' | 'not_applied') =>
    ({
      type: 'ResolveReview',
      data: { resolution, reviewer: 'human:ana', reason: 'Invoice INV-2207 exists.' },
      metadata: meta(30),
    }) as const;

  it('applied → completed, result not delivered', () => {
    const state = given(histories.needs_review).when(resolve('applied')).then([events.reviewResolved()]);
    expect(state).toMatchObject({
      status: 'completed_result_not_delivered',
      completedAt: at(30),
      progress: { reviewResolution: 'applied' },
    });
  });

  it('not_applied → failed, never back to a silent re-send', () => {
    const state = given(histories.needs_review)
      .when(resolve('not_applied'))
      .then([events.reviewResolved({ resolution: 'not_applied' })]);
    expect(state).toMatchObject({ status: 'failed', failure: { reason: 'human:ana found it was not applied: Invoice INV-2207 exists.' } });
  });

  it('is a no-op for the same resolution, refused for a different one or outside review', () => {
    const resolved = [...histories.needs_review, events.reviewResolved()];
    given(resolved).when(resolve('applied')).thenNothing();
    given(resolved).when(resolve('not_applied')).thenRefuses('illegal_transition');
    given(histories.dispatched_unknown).when(resolve('applied')).thenRefuses('illegal_transition');
  });
});
