import type { ExecutionEventEnvelope } from '@onceport/contracts';

/** The longest pause between two tries, however many retries are configured. */
const MAX_BACKOFF_MS = 30_000;

export interface RetryPolicy {
  /** Tries after the first one that failed before sending; 0 makes the first failure final. */
  readonly retries: number;
  /** Pause before the first retry; doubles with each further one. */
  readonly backoffMs: number;
}

/** Failures before send of the current dispatch round, and when the latest one happened. */
export interface RoundFailures {
  readonly count: number;
  readonly lastFailedAt: string | null;
}

/**
 * Counted from the stream, not from memory, so every replica applies the same budget and a
 * retry picked up by another replica (or after a restart) does not start from zero. A round
 * starts with each authorization and each `OutcomeSettled` (a settled `not_applied` is a fresh
 * order to dispatch).
 */
export function roundFailures(events: readonly ExecutionEventEnvelope[]): RoundFailures {
  let count = 0;
  let lastFailedAt: string | null = null;
  for (const event of events) {
    if (event.type === 'ExecutionAuthorized' || event.type === 'OutcomeSettled') {
      count = 0;
      lastFailedAt = null;
    } else if (event.type === 'DispatchFailedBeforeSend' && event.data.retryable) {
      count += 1;
      lastFailedAt = event.data.failedAt;
    }
  }
  return { count, lastFailedAt };
}

/** The pause owed before the try that follows `failures` failures. */
export function backoffMs(policy: RetryPolicy, failures: number): number {
  if (failures <= 0) return 0;
  return Math.min(policy.backoffMs * 2 ** (failures - 1), MAX_BACKOFF_MS);
}

/** How long to wait from `now` before the next try may start; 0 when it may start at once. */
export function waitBeforeNextTry(policy: RetryPolicy, events: readonly ExecutionEventEnvelope[], now: Date): number {
  const { count, lastFailedAt } = roundFailures(events);
  if (lastFailedAt === null) return 0;
  const owed = backoffMs(policy, count);
  // Capped at the backoff itself: a replica whose clock runs ahead must not park the execution.
  return Math.min(owed, Math.max(0, Date.parse(lastFailedAt) + owed - now.getTime()));
}

/**
 * Whether a failure before send may be recorded as retryable. `failuresSoFar` counts the round's
 * earlier failures; the one being recorded is the next. The last allowed failure is recorded as
 * not retryable, so the stream itself says the dispatcher gave up (the execution ends `failed`).
 */
export function mayRetry(policy: RetryPolicy, failuresSoFar: number): boolean {
  return failuresSoFar + 1 <= policy.retries;
}
