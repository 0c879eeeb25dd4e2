import type { ActorLimits } from '@onceport/config';

/** A call refused by one of its actor's limits, before anything was written. */
export abstract class ActorLimitError extends Error {
  abstract readonly code: 'rate_limited' | 'too_many_in_flight';

  constructor(
    message: string,
    /** When the call may be sent again with a chance of success (ms). */
    readonly retryAfterMs: number,
    readonly limits: ActorLimits,
  ) {
    super(message);
  }

  /** `Retry-After` is whole seconds (RFC 9110 §10.2.3): rounded up, never 0. */
  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.retryAfterMs / 1000));
  }
}

/** The actor's token bucket is empty. */
export class RateLimitedError extends ActorLimitError {
  readonly code = 'rate_limited';

  constructor(actor: string, limits: ActorLimits, retryAfterMs: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    super(
      `rate limit: ${actor} may send ${limits.ratePerSecond} tool calls a second (bursts of ${limits.burst}); retry in ${seconds} s`,
      retryAfterMs,
      limits,
    );
    this.name = 'RateLimitedError';
  }
}

/**
 * How soon a caller at the in-flight cap is told to try again: the cap frees as soon as one of the
 * actor's executions settles, which nobody can predict; a second keeps a polite client polite.
 */
export const IN_FLIGHT_RETRY_AFTER_MS = 1_000;

/** The actor already has `maxInFlight` executions accepted and not yet settled. */
export class TooManyInFlightError extends ActorLimitError {
  readonly code = 'too_many_in_flight';

  constructor(
    actor: string,
    limits: ActorLimits,
    readonly inFlight: number,
  ) {
    super(
      `in-flight limit: ${actor} has ${inFlight} executions accepted and not yet settled, at most ${limits.maxInFlight} are allowed; a retry of one of them still attaches, a new one may be sent once one settles`,
      IN_FLIGHT_RETRY_AFTER_MS,
      limits,
    );
    this.name = 'TooManyInFlightError';
  }
}
