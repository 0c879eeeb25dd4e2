import type { ActorLimits } from '@onceport/config';
import { RateLimitedError } from './limit-errors';
import { type TokenBucket, fullBucket, takeToken } from './token-bucket';

/**
 * One token bucket per actor, in this process. Keyed by authenticated actor ids only, so the map
 * is as large as the actors file, no larger. Per replica by design: a shared bucket would cost a
 * database write per call; with N intake replicas an actor's rate is up to N × its setting.
 */
export class CallRateLimiter {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** Takes one call's token, or throws {@link RateLimitedError} saying when to come back. */
  admit(actor: string, limits: ActorLimits): void {
    const now = this.clock();
    const taken = takeToken(this.buckets.get(actor) ?? fullBucket(limits, now), limits, now);
    this.buckets.set(actor, taken.bucket);
    if (!taken.taken) throw new RateLimitedError(actor, limits, taken.retryAfterMs);
  }
}
