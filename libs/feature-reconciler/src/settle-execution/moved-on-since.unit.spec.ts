import { movedOnSince } from './moved-on-since';

const stream = (...types: string[]) => types.map((type) => ({ type }));

describe('movedOnSince (what fences a reconciler write out)', () => {
  const seen = stream('ExecutionAccepted', 'ExecutionAuthorized', 'DispatchStarted', 'OutcomeUnknown');

  it('nothing appended since: not moved on', () => {
    expect(movedOnSince(seen, 4)).toBe(false);
  });

  it('only retries attaching and answers delivered since: not moved on (they commute with a probe record)', () => {
    expect(movedOnSince([...seen, ...stream('RetryAttached', 'ResultDelivered', 'RetryAttached')], 4)).toBe(false);
  });

  it('another probe, a settlement or a late dispatcher outcome since: moved on, the write stands down', () => {
    for (const type of ['ProbeAttempted', 'OutcomeSettled', 'OutcomeObserved', 'DispatchStarted']) {
      expect(movedOnSince([...seen, ...stream('RetryAttached', type)], 4)).toBe(true);
    }
  });
});
