/** A token bucket's rate: `ratePerSecond` tokens drip in, at most `burst` are kept. */
export interface BucketRate {
  readonly ratePerSecond: number;
  readonly burst: number;
}

/** What is left in a bucket, and when that was true (ms since the epoch). */
export interface TokenBucket {
  readonly tokens: number;
  readonly atMs: number;
}

export type TakeResult =
  | { readonly taken: true; readonly bucket: TokenBucket }
  /** `retryAfterMs`: when the bucket will hold a whole token again, if nothing else takes one. */
  | { readonly taken: false; readonly bucket: TokenBucket; readonly retryAfterMs: number };

/** A bucket nobody has taken from yet: full. */
export function fullBucket(rate: BucketRate, nowMs: number): TokenBucket {
  return { tokens: rate.burst, atMs: nowMs };
}

/**
 * Takes one token at `nowMs`, if there is one. Pure: the caller keeps the bucket and passes the
 * time in. A clock that steps back refills nothing (it never hands out tokens it did not earn).
 */
export function takeToken(bucket: TokenBucket, rate: BucketRate, nowMs: number): TakeResult {
  const elapsedMs = Math.max(0, nowMs - bucket.atMs);
  const tokens = Math.min(rate.burst, bucket.tokens + (elapsedMs * rate.ratePerSecond) / 1000);
  const atMs = Math.max(nowMs, bucket.atMs);
  if (tokens >= 1) return { taken: true, bucket: { tokens: tokens - 1, atMs } };
  return { taken: false, bucket: { tokens, atMs }, retryAfterMs: Math.ceil(((1 - tokens) * 1000) / rate.ratePerSecond) };
}
