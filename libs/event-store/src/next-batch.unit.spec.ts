import { NextBatch } from './next-batch';

/** A run the test ends by hand, so what arrives while it is in flight is known exactly. */
function controlledRuns<I>(output: (item: I) => string = (item) => `out:${String(item)}`) {
  const runs: Array<{ items: readonly I[]; finish: () => void; fail: (error: Error) => void }> = [];
  const run = (items: readonly I[]) =>
    new Promise<string[]>((resolve, reject) => {
      runs.push({ items, finish: () => resolve(items.map(output)), fail: reject });
    });
  return { runs, run };
}

describe('NextBatch', () => {
  it('runs a lone item at once', async () => {
    const { runs, run } = controlledRuns<number>();
    const batches = new NextBatch(run);

    const answer = batches.submit(1);
    expect(runs.map((r) => r.items)).toEqual([[1]]);
    runs[0]!.finish();

    await expect(answer).resolves.toBe('out:1');
  });

  it('sends what arrives during a run together in the next run, in order', async () => {
    const { runs, run } = controlledRuns<number>();
    const batches = new NextBatch(run);

    const first = batches.submit(1);
    const later = [2, 3, 4].map((item) => batches.submit(item));
    expect(batches.queued).toBe(3);
    runs[0]!.finish();
    await first;
    await new Promise(setImmediate);
    expect(runs.map((r) => r.items)).toEqual([[1], [2, 3, 4]]);
    runs[1]!.finish();

    await expect(Promise.all(later)).resolves.toEqual(['out:2', 'out:3', 'out:4']);
    expect(batches.queued).toBe(0);
  });

  it('splits a long queue into runs of at most maxItems', async () => {
    const { runs, run } = controlledRuns<number>();
    const batches = new NextBatch(run, 2);

    const all = [1, 2, 3, 4, 5].map((item) => batches.submit(item));
    for (let i = 0; i < 4; i++) {
      await new Promise(setImmediate);
      runs[i]?.finish();
    }

    await expect(Promise.all(all)).resolves.toEqual(['out:1', 'out:2', 'out:3', 'out:4', 'out:5']);
    expect(runs.map((r) => r.items)).toEqual([[1], [2, 3], [4, 5]]);
  });

  it('fails only the bad item of a failed run: the run goes again in halves until the bad item runs alone', async () => {
    const runs: Array<readonly string[]> = [];
    const batches = new NextBatch<string, string>(async (items) => {
      runs.push(items);
      if (items.includes('bad')) throw new Error('the database refused bad');
      return items.map((item) => item.toUpperCase());
    });

    const first = batches.submit('a');
    const rest = ['b', 'bad', 'c'].map((item) => batches.submit(item).catch((error: Error) => error.message));

    await expect(first).resolves.toBe('A');
    await expect(Promise.all(rest)).resolves.toEqual(['B', 'the database refused bad', 'C']);
    expect(runs).toEqual([['a'], ['b', 'bad', 'c'], ['b', 'bad'], ['b'], ['bad'], ['c']]);
  });

  it('finds one bad item among many in a few runs, not one run per item', async () => {
    const runs: Array<readonly number[]> = [];
    const batches = new NextBatch<number, number>(async (items) => {
      runs.push(items);
      if (items.includes(13)) throw new Error('the database refused 13');
      return items.map((item) => item * 2);
    });

    const first = batches.submit(0);
    const rest = Array.from({ length: 64 }, (_, i) => batches.submit(i + 1).catch((error: Error) => error.message));

    await expect(first).resolves.toBe(0);
    const answers = await Promise.all(rest);
    expect(answers[12]).toBe('the database refused 13');
    expect(answers.filter((answer) => typeof answer === 'number')).toEqual(
      Array.from({ length: 64 }, (_, i) => (i + 1) * 2).filter((n) => n !== 26),
    );
    expect(runs.length).toBeLessThanOrEqual(2 + 2 * Math.log2(64)); // each alone would be 66 runs
    expect(runs.flat().filter((item) => item === 13)).toHaveLength(1 + Math.log2(64)); // in every half that held it
  });

  it('fails the whole run, without running it again, on an error it is not told to isolate (the run may have committed)', async () => {
    const runs: Array<readonly string[]> = [];
    const batches = new NextBatch<string, string>(
      async (items) => {
        runs.push(items);
        if (items.length > 1) throw new Error('connection lost');
        return items.map((item) => item.toUpperCase());
      },
      256,
      (error) => !(error instanceof Error && error.message === 'connection lost'),
    );

    const first = batches.submit('a');
    const rest = ['b', 'c'].map((item) => batches.submit(item).catch((error: Error) => error.message));

    await expect(first).resolves.toBe('A');
    await expect(Promise.all(rest)).resolves.toEqual(['connection lost', 'connection lost']);
    expect(runs).toEqual([['a'], ['b', 'c']]);
  });

  it('refuses a run that answers with the wrong number of outputs, failing its items instead of mismatching them', async () => {
    const batches = new NextBatch<number, number>(async (items) => items.slice(1));

    await expect(batches.submit(1)).rejects.toThrow(/a run of 1 items returned 0 outputs/);
  });

  it('refuses a batch size that is not a whole number ≥ 1', () => {
    expect(() => new NextBatch(async (items: readonly number[]) => items, 0)).toThrow(RangeError);
  });
});
