import type { ExecutionEventEnvelope } from '@onceport/contracts';
import { events } from '@onceport/domain/testing';
import { backoffMs, mayRetry, roundFailures, waitBeforeNextTry } from './retry-policy';

const envelope = (event: ReturnType<typeof events.accepted>, i: number): ExecutionEventEnvelope =>
  ({
    ...event,
    schemaVersion: 1,
    metadata: {
      eventId: `00000000-0000-4000-8000-00000000000${i}`,
      correlationId: 'c',
      causationId: 'c',
      occurredAt: '2026-03-02T10:00:00.000Z',
    },
  }) as ExecutionEventEnvelope;
const stream = (...list: ReturnType<typeof events.accepted>[]): ExecutionEventEnvelope[] => list.map(envelope);
const policy = { retries: 3, backoffMs: 100 };

describe('retry policy', () => {
  it('counts the retryable failures of the current round only', () => {
    const history = stream(
      events.accepted(),
      events.authorized(),
      events.dispatchStarted(),
      events.failedBeforeSend({ attempt: 1, failedAt: '2026-03-02T10:00:01.000Z' }),
      events.dispatchStarted({ attempt: 2 }),
      events.failedBeforeSend({ attempt: 2, failedAt: '2026-03-02T10:00:02.000Z' }),
    );
    expect(roundFailures(history)).toEqual({ count: 2, lastFailedAt: '2026-03-02T10:00:02.000Z' });
  });

  it('starts a new round with a not_applied settlement (a fresh order to dispatch)', () => {
    const history = stream(
      events.accepted(),
      events.authorized(),
      events.dispatchStarted(),
      events.failedBeforeSend(),
      events.dispatchStarted({ attempt: 2 }),
      events.unknown({ attempt: 2 }),
      events.settled({ attempt: 2, settlement: 'not_applied' }),
    );
    expect(roundFailures(history)).toEqual({ count: 0, lastFailedAt: null });
  });

  it('doubles the pause with every retry, up to 30 s', () => {
    expect([0, 1, 2, 3].map((n) => backoffMs(policy, n))).toEqual([0, 100, 200, 400]);
    expect(backoffMs({ retries: 20, backoffMs: 1000 }, 20)).toBe(30_000);
  });

  it('owes the rest of the backoff since the last failure, and never more than the backoff (clock skew)', () => {
    const history = stream(
      events.accepted(),
      events.authorized(),
      events.dispatchStarted(),
      events.failedBeforeSend({ failedAt: '2026-03-02T10:00:00.000Z' }),
    );
    expect(waitBeforeNextTry(policy, history, new Date('2026-03-02T10:00:00.030Z'))).toBe(70);
    expect(waitBeforeNextTry(policy, history, new Date('2026-03-02T10:00:05.000Z'))).toBe(0);
    expect(waitBeforeNextTry(policy, history, new Date('2026-03-02T09:59:00.000Z'))).toBe(100);
    expect(waitBeforeNextTry(policy, stream(events.accepted(), events.authorized()), new Date())).toBe(0);
  });

  it('allows `retries` retryable failures; the one after is final', () => {
    expect([0, 1, 2, 3].map((earlier) => mayRetry(policy, earlier))).toEqual([true, true, true, false]);
    expect(mayRetry({ retries: 0, backoffMs: 0 }, 0)).toBe(false);
  });
});
