import type { Queryable } from './queryable';
import { NOTICE_SPACING_MS, notifyAppended } from './appended-notice';

/** A pool whose queries finish when the test says. */
function pendingPool() {
  const sent: Array<() => void> = [];
  const pool = {
    query: () =>
      new Promise((resolve) => {
        sent.push(() => resolve({ rows: [] }));
      }),
  } as unknown as Queryable;
  return { pool, sent };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('notices of appended events', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate'] }));
  afterEach(() => jest.useRealTimers());

  it('are coalesced per pool: commits during a notice, or within its spacing, share the next one, which starts after them', async () => {
    const { pool, sent } = pendingPool();
    notifyAppended(pool);
    await turn();
    expect(sent).toHaveLength(1);
    for (let i = 0; i < 50; i++) notifyAppended(pool);
    await turn();
    expect(sent).toHaveLength(1); // still the first one in flight
    sent[0]?.();
    await turn();
    expect(sent).toHaveLength(1); // answered, but within its spacing
    notifyAppended(pool);
    await jest.advanceTimersByTimeAsync(NOTICE_SPACING_MS);
    await turn();
    expect(sent).toHaveLength(2); // one for all fifty-one, sent after the last of them
    sent[1]?.();
    await turn();
    expect(sent).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(NOTICE_SPACING_MS);
    notifyAppended(pool);
    await turn();
    expect(sent).toHaveLength(3); // quiet for a spacing: the next commit is noticed at once
    sent[2]?.();
  });

  it('a failed notice is dropped (readers poll), and the next commit sends again', async () => {
    let calls = 0;
    const pool = {
      query: async () => {
        calls += 1;
        if (calls === 1) throw new Error('connection lost');
        return { rows: [] };
      },
    } as unknown as Queryable;
    notifyAppended(pool);
    await turn();
    await jest.advanceTimersByTimeAsync(NOTICE_SPACING_MS);
    notifyAppended(pool);
    await turn();
    expect(calls).toBe(2);
  });
});
