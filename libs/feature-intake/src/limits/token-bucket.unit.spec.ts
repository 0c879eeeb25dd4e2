import { type BucketRate, type TokenBucket, fullBucket, takeToken } from './token-bucket';

const rate: BucketRate = { ratePerSecond: 2, burst: 3 };

/** Takes `count` tokens at `nowMs`, threading the bucket; returns what each take said. */
function takeMany(bucket: TokenBucket, count: number, nowMs: number): { bucket: TokenBucket; taken: boolean[] } {
  const taken: boolean[] = [];
  for (let i = 0; i < count; i += 1) {
    const result = takeToken(bucket, rate, nowMs);
    taken.push(result.taken);
    bucket = result.bucket;
  }
  return { bucket, taken };
}

describe('token bucket', () => {
  it('given a full bucket, when the burst arrives at once, then each is taken and the next is refused with the time to the next token', () => {
    const { bucket, taken } = takeMany(fullBucket(rate, 1_000), 3, 1_000);
    expect(taken).toEqual([true, true, true]);
    const next = takeToken(bucket, rate, 1_000);
    expect(next).toEqual({ taken: false, bucket: { tokens: 0, atMs: 1_000 }, retryAfterMs: 500 });
  });

  it('given an empty bucket, when the retry time has passed, then one token is there again, and only one', () => {
    const { bucket } = takeMany(fullBucket(rate, 0), 3, 0);
    expect(takeToken(bucket, rate, 499).taken).toBe(false);
    const after = takeToken(bucket, rate, 500);
    expect(after.taken).toBe(true);
    const again = takeToken(after.bucket, rate, 500);
    expect(again).toMatchObject({ taken: false, retryAfterMs: 500 });
  });

  it('given part of a token, when refused, then the wait is only for the rest of it', () => {
    const { bucket } = takeMany(fullBucket(rate, 0), 3, 0);
    expect(takeToken(bucket, rate, 200)).toMatchObject({ taken: false, retryAfterMs: 300 });
  });

  it('given a long quiet spell, when calls come again, then at most the burst is there (tokens do not pile up)', () => {
    const { bucket } = takeMany(fullBucket(rate, 0), 3, 0);
    expect(takeMany(bucket, 4, 3_600_000).taken).toEqual([true, true, true, false]);
  });

  it('given a clock that steps back, when a call comes, then nothing is refilled and the bucket keeps its later time', () => {
    const { bucket } = takeMany(fullBucket(rate, 10_000), 3, 10_000);
    const back = takeToken(bucket, rate, 5_000);
    expect(back).toEqual({ taken: false, bucket: { tokens: 0, atMs: 10_000 }, retryAfterMs: 500 });
  });

  it('given a rate below one a second, when refused, then the retry time is the whole interval', () => {
    const slow: BucketRate = { ratePerSecond: 0.5, burst: 1 };
    const first = takeToken(fullBucket(slow, 0), slow, 0);
    expect(first.taken).toBe(true);
    expect(takeToken(first.bucket, slow, 0)).toMatchObject({ taken: false, retryAfterMs: 2_000 });
  });
});
