import type { Queryable } from '../queryable';
import { HeldBackBackoff } from './held-back';

/** A database that answers the held-back question with whatever the test says next. */
function database(held: boolean[]): Queryable {
  return { query: async () => ({ rows: [{ held: held.shift() ?? false }] }) } as unknown as Queryable;
}

const AT = { transactionId: 10n, globalPosition: 5n };

describe('waiting between reads of the store', () => {
  it('stretches the idle interval while nothing comes, up to eight times, and is back at once after events', async () => {
    const backoff = new HeldBackBackoff();
    const db = database([]);
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) waits.push(await backoff.waitMs(db, AT, 250));
    expect(waits).toEqual([250, 500, 1_000, 2_000, 2_000, 2_000]);
    backoff.reset();
    expect(await backoff.waitMs(db, AT, 250)).toBe(250);
  });

  it('looks again within milliseconds while an open transaction holds events back, never longer than the idle interval', async () => {
    const backoff = new HeldBackBackoff();
    const waits: number[] = [];
    const db = database([true, true, true, true, true, true, true, false]);
    for (let i = 0; i < 8; i++) waits.push(await backoff.waitMs(db, AT, 20));
    expect(waits).toEqual([1, 2, 4, 8, 16, 20, 20, 20]);
  });
});
