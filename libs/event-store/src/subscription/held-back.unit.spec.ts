import { HeldBackBackoff } from './held-back';

describe('waiting between reads of the store', () => {
  it('stretches the idle interval while nothing comes, up to eight times, and is back at once after events', () => {
    const backoff = new HeldBackBackoff();
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) waits.push(backoff.waitMs(false, 250));
    expect(waits).toEqual([250, 500, 1_000, 2_000, 2_000, 2_000]);
    backoff.reset();
    expect(backoff.waitMs(false, 250)).toBe(250);
  });

  it('looks again within milliseconds while an open transaction holds events back, never longer than the idle interval', () => {
    const backoff = new HeldBackBackoff();
    const waits: number[] = [];
    for (const heldBack of [true, true, true, true, true, true, true, false]) waits.push(backoff.waitMs(heldBack, 20));
    expect(waits).toEqual([1, 2, 4, 8, 16, 20, 20, 20]);
  });
});
